#!/usr/bin/env bash
# Installs ReduceLab's build and run dependencies from Debian 12 packages (idempotent).
# CUDA 13 (nvcc, CUB) is expected to be installed already; this script checks for it.
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  libglfw3-dev libimgui-dev python3-glad
  libegl-dev libegl-mesa0 libgl1-mesa-dri
  libstb-dev libcli11-dev nlohmann-json3-dev libgtest-dev fonts-dejavu-core
  libcairo2-dev poppler-utils desktop-file-utils appstream
  texlive-latex-base texlive-latex-recommended
  python3-venv
  xvfb xdotool imagemagick  # tests/xvfb: a real window driven by key presses
  ccache
  clang-14 libfuzzer-14-dev  # scripts/fuzz.sh (libFuzzer harnesses of the input parsers)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi
if ! command -v nvcc >/dev/null 2>&1; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    echo "setup: nvcc found in /usr/local/cuda/bin (add it to PATH: export PATH=/usr/local/cuda/bin:\$PATH)"
  else
    echo "setup: error: the CUDA Toolkit 13 (nvcc) is not installed; install it from NVIDIA first" >&2
    exit 1
  fi
fi
