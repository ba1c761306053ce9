#!/bin/bash
# Run from the repo root on the device (gpu_bench.sh says how .gl/ and .whl/ are made): build
# configs/tomato-scale.yaml on the GPU with 16 processes (retrieval and the text-embedding
# shortcut audit off: their model and faiss do not fit the carried wheels), then check every
# label from the GPU-rendered pixels (`audit verify`, exact by default) and `validate` the build.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site PYOPENGL_PLATFORM=egl PYTHONUNBUFFERED=1 PYGLET_HEADLESS=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
sed -e 's/^shortcuts:.*//' -e '/^retrieval:/,/^[a-z]/ s/pairs: [0-9]*/pairs: 0/' \
  configs/tomato-scale.yaml > /tmp/tomato-gpu.yaml && echo 'shortcuts: "off"' >> /tmp/tomato-gpu.yaml
cd /tmp
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
  python3 -P -c "from tempogen.generators.render3d import gl_info; print(gl_info())"; } 2>&1 | tee $OUT/gpu_verify.txt
step() {  # step NAME LIMIT cmd...: run, time, keep the log's tail
  local name=$1 limit=$2; shift 2; local s=$(date +%s.%N)
  timeout $limit "$@" > $OUT/$name.log 2> $OUT/$name.err; local rc=$?
  echo "$name rc $rc wall $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s" | tee -a $OUT/gpu_verify.txt
  tail -c 1500 $OUT/$name.err | tr '\r' '\n' | tail -8; tail -12 $OUT/$name.log
}
step generate 400 python3 -m tempogen.cli generate --config /tmp/tomato-gpu.yaml --out /tmp/ds -j 16
wc -l < /tmp/ds/manifest.jsonl | tee -a $OUT/gpu_verify.txt
step verify 110 python3 -m tempogen.cli audit verify --manifest /tmp/ds/manifest.jsonl -j 16
step validate 50 python3 -m tempogen.cli validate /tmp/ds
