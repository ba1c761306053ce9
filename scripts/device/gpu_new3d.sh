#!/bin/bash
# One prepared GPU run (the device tool), set up as gpu_bench.sh: the 3D temporal-noise clips
# and human Vinoground pairs rendered on the node's EGL, the noise clips re-answered from
# pixels, and whether the image has Ray. Results go to $OUT (BENCHMARKS.md section 12).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site PYOPENGL_PLATFORM=egl PYTHONUNBUFFERED=1 PYGLET_HEADLESS=1
if [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $OUT/gpu.txt
python3 -c "import ray; print('ray', ray.__version__)" 2>&1 | tail -1 | tee -a $OUT/gpu.txt
timeout 400 python3 -P scripts/device/gpu_new3d.py $OUT/run --pairs 3 2>&1 | grep -v Warn | tee $OUT/new3d.log | tail -20
cp $OUT/run/gpu_new3d.json $OUT/ 2>/dev/null; rm -rf $OUT/run
echo done
