#!/bin/bash
# One prepared GPU run (the device tool): GL libraries from .gl/*.deb, wheels from .whl/
# (cp312 builds of what the image lacks, and tempogen's own wheel), then a frame dump for
# comparing GL implementations and bench_human on EGL. Results go to $OUT. BENCHMARKS.md
# section 10 says how the .deb and wheel folders were made and what this measured.
set -x
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site PYOPENGL_PLATFORM=egl PYTHONUNBUFFERED=1 PYGLET_HEADLESS=1
if [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
set +x
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $OUT/gpu.txt
lscpu | grep -E "Model name|^CPU\(s\)" | tee -a $OUT/gpu.txt
python3 -P -c "from tempogen.generators.render3d import gl_info; print(gl_info())" 2>&1 | tee -a $OUT/gpu.txt
timeout 120 python3 scripts/device/dump_frames.py $OUT/frames_gpu.npz 2>&1 | tail -3
timeout 300 python3 bench/bench_human.py --frames 150 --repeat 2 --jobs 2 --out $OUT/human_gpu.json 2>&1 | tee $OUT/bench.log | tail -60
echo done
