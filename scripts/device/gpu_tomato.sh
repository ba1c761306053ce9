#!/bin/bash
# Run from the repo root on the device (see gpu_bench.sh for the .gl/ and .whl/ folders).
# configs/tomato-scale.yaml (retrieval and the text-embedding shortcut audit off: their model
# and faiss do not fit the carried wheels) on the GPU node, 16 worker processes.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site PYOPENGL_PLATFORM=egl PYTHONUNBUFFERED=1 PYGLET_HEADLESS=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
REPO=$PWD
# the same config with retrieval and the shortcut audit off
sed -e 's/^shortcuts:.*//' -e '/^retrieval:/,/^[a-z]/ s/pairs: [0-9]*/pairs: 0/' \
  configs/tomato-scale.yaml > /tmp/tomato-gpu.yaml && echo 'shortcuts: "off"' >> /tmp/tomato-gpu.yaml
cd /tmp
nproc | tee $OUT/gpu_tomato.txt
T=""; [ -x /usr/bin/time ] && T="/usr/bin/time -v"
start=$(date +%s.%N)
$T timeout 500 python3 -m tempogen.cli generate --config /tmp/tomato-gpu.yaml --out /tmp/ds -j 16 > $OUT/gen.log 2> $OUT/gen.err
rc=$?
end=$(date +%s.%N)
echo "rc $rc wall $(python3 -c "print(round($end - $start, 1))") s" | tee -a $OUT/gpu_tomato.txt
grep -E "Maximum resident|Elapsed" $OUT/gen.err; tail -c 600 $OUT/gen.err | tr '\r' '\n' | tail -30
tail -5 $OUT/gen.log
ls /tmp/ds/videos 2>/dev/null | wc -l
du -sh /tmp/ds 2>/dev/null
