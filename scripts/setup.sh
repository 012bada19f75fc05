#!/usr/bin/env bash
# Installs what ptp needs from Debian 12 packages (idempotent; run as root or with sudo available).
# The CUDA toolkit is expected at /usr/local/cuda; without it the CUDA backend is simply not built.
# Usage: scripts/setup.sh [--tests]   (--tests: also what only the test suite needs, scripts/test.sh)
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config git python3
          libxgboost-dev libcli11-dev libspdlog-dev libyaml-cpp-dev catch2 nlohmann-json3-dev
          libbenchmark-dev libssl-dev openmpi-bin libopenmpi-dev libopenblas-dev
          libtomlplusplus-dev clang libclang-rt-14-dev
          pybind11-dev python3-dev)
# The Python package's tests: pytest, and PyTorch for the StepTimer on a tiny CPU model.
[[ ${1:-} == --tests ]] && packages+=(python3-pytest python3-torch)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all packages present"
fi
