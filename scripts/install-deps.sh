#!/usr/bin/env bash
# Install what bankbench needs to build and test, from Debian/Ubuntu packages. Idempotent: packages
# already present are left alone, and nothing is done when everything is there.
set -euo pipefail

packages=(build-essential cmake ninja-build git pkg-config
          libyaml-cpp-dev libsqlite3-dev sqlite3 libspdlog-dev libfmt-dev libcli11-dev
          libvalijson-dev nlohmann-json3-dev libgtest-dev
          chromium libpng-dev python3
          python3-yaml                    # bench/model_code_vs_plans.py (the code_twins test)
          slurm-wlm munge                 # the Slurm test (tests/slurm) starts its own daemons
          clang libclang-rt-14-dev        # libFuzzer for scripts/fuzz.sh
          clang-format-14)                # the layout check (scripts/format-check.sh)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "install-deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA Toolkit (nvcc, cudart, CUPTI, NVTX) comes from NVIDIA's packages, not Debian's: the
# range profiler needs CUDA 12.8 or newer, newer than Debian ships.
cuda="${CUDAToolkit_ROOT:-/usr/local/cuda}"
if [ ! -x "$cuda/bin/nvcc" ] || [ ! -e "$cuda/include/cupti_range_profiler.h" ]; then
  echo "install-deps: CUDA Toolkit 12.8+ with CUPTI not found at $cuda." >&2
  echo "  Install it from NVIDIA's repository (package cuda-toolkit-13-0), or set CUDAToolkit_ROOT." >&2
  exit 1
fi
echo "install-deps: all dependencies present (CUDA at $cuda)" >&2
