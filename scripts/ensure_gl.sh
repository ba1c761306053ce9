#!/usr/bin/env bash
# Offscreen OpenGL for the 3D renderer: EGL with Mesa's llvmpipe on a CPU machine (a GPU
# machine brings the NVIDIA driver's EGL). Installs Debian's packages when they are missing
# and apt-get can run; otherwise says what to install. Idempotent and quiet when all is there.
set -u
if ldconfig -p 2>/dev/null | grep -q 'libEGL_mesa\.so\|libEGL_nvidia\.so' \
  && ldconfig -p 2>/dev/null | grep -q 'libEGL\.so\.1'; then
  exit 0
fi
packages="libegl1 libegl-mesa0 libgl1-mesa-dri libgl1 libglu1-mesa"
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing offscreen OpenGL (EGL, Mesa): $packages" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages >/dev/null) \
    || echo "warning: could not install $packages; 3D clips need EGL" >&2
else
  echo "warning: EGL/Mesa not found; install: $packages (3D clips need offscreen OpenGL)" >&2
fi
