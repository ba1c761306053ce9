#!/bin/bash
# Run from the repo root on the device (gpu_bench.sh says how .gl/ and .whl/ are made).
# A 3D-heavy build (every task, half humans, half 3D objects; no retrieval, shortcut audit or
# Vinoground pairs) on the GPU, then `audit verify` from the GPU-rendered pixels.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site PYOPENGL_PLATFORM=egl PYTHONUNBUFFERED=1 PYGLET_HEADLESS=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
cat > /tmp/c3d.yaml <<'Y'
seed: 1127
size: [640, 360]
fps: 30
duration: [3.0, 5.0]
samples_per_task: 60
tasks: [count, direction, rotation, "shape&trend", "velocity&frequency", visual_cues]
style: {distractors: [0, 2], misleading_text: 0.15, backgrounds: [solid, gradient, grid, noise]}
variants: {share: 0.25}
vinoground: {pairs: 0}
scenes3d: {humans: 0.5, objects: 0.5, duration: [3.0, 5.0]}
retrieval: {pairs: 0}
shortcuts: "off"
Y
cd /tmp; rm -rf /tmp/d3; s=$(date +%s)  # a warm machine keeps /tmp: never resume
timeout 170 python3 -m tempogen.cli generate --config /tmp/c3d.yaml --out /tmp/d3 -j 16 > $OUT/gen3d.log 2> $OUT/gen3d.err; echo "generate rc $? $(( $(date +%s)-s )) s"
tail -c 400 $OUT/gen3d.err | tr '\r' '\n' | tail -3; tail -3 $OUT/gen3d.log
python3 -c "import json,collections;r=[json.loads(l) for l in open('/tmp/d3/manifest.jsonl')];print(len(r),'rows', collections.Counter(x['note'] for x in r))"
s=$(date +%s); timeout 80 python3 -m tempogen.cli audit verify --manifest /tmp/d3/manifest.jsonl -j 16 > $OUT/verify3d.log 2>&1; echo "verify rc $? $(( $(date +%s)-s )) s"; grep -v "clip \[" $OUT/verify3d.log | tail -8
