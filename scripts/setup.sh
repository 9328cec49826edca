#!/usr/bin/env bash
# Installs the Debian packages Grapple builds with (only those missing), then configures and
# builds it (Release) into build/. Sourced by run.sh and test.sh; safe to run again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(
  cmake ninja-build g++ pkg-config
  libeigen3-dev libyaml-cpp-dev libtinyxml2-dev libbenchmark-dev
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev libqcustomplot-dev
  libopenscenegraph-dev libassimp-dev libgl1-mesa-dri libegl-dev zlib1g-dev libpng-dev fonts-dejavu-core
  xvfb xauth ffmpeg liburdfdom-tools
  libnlopt-cxx-dev libslicot-dev gfortran liblapack-dev libblas-dev
  nlohmann-json3-dev libcli11-dev parallel slurm-wlm munge
  clang libfuzzer-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
