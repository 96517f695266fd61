# shellcheck shell=bash
# scripts/gpu-check's preflight (<= 10 s, before anything is built): the GPU, its driver branch,
# its compute capability, the toolkit and the libraries the GPU build needs. It never installs
# anything: a lent GPU machine has no network, so it says what is missing and exits 2.
# Environment (the preflight's tests set these; see tests/scripts/gpu-check-preflight-test.sh):
#   PIPESCOPE_NVIDIA_SMI           the nvidia-smi to ask (default: nvidia-smi on PATH)
#   PIPESCOPE_CUDA_ARCH            CMAKE_CUDA_ARCHITECTURES instead of the detected one ("90")
#   PIPESCOPE_GPU_CHECK_INCLUDE_DIRS  where to look for nccl.h and re2/re2.h besides the toolkit's
#                                  include folder (default "/usr/include:/usr/local/include")
#   PIPESCOPE_GPU_CHECK_PACKAGES   Debian packages the build needs (default: the list below;
#                                  empty: none checked)
#   PIPESCOPE_GPU_CHECK_LIB_DIRS   with --prebuilt: where to look for cuBLAS and NCCL (default:
#                                  the loader's cache, then the toolkit's folders, /opt (Python
#                                  wheels) and /usr/local/lib)

PIPESCOPE_MIN_DRIVER_BRANCH=580 # the CUDA 13 runtime refuses older drivers

preflight_stop() {
  echo "gpu-check: $*" >&2
  echo "gpu-check: stopped at the preflight after $(elapsed) s; nothing was built or run." >&2
  exit 2
}

no_gpu() {
  echo "gpu-check: no NVIDIA GPU: $*" >&2
  echo "gpu-check: this script needs a machine with an NVIDIA GPU and its driver; nothing was" \
    "built or run (the CPU-only checks are scripts/test)." >&2
  exit 2
}

# Sets GPU_COUNT, GPU_NAME, DRIVER.
preflight_gpu() {
  local smi=${PIPESCOPE_NVIDIA_SMI:-nvidia-smi} list
  command -v "$smi" >/dev/null 2>&1 || no_gpu "$smi is not installed (no NVIDIA driver)"
  if ! list=$(timeout --kill-after=1 5 "$smi" \
    --query-gpu=index,name,memory.total,driver_version --format=csv,noheader 2>&1); then
    no_gpu "$smi failed: $(echo "$list" | head -n 2 | tr '\n' ' ')"
  fi
  list=$(echo "$list" | sed '/^[[:space:]]*$/d')
  [ -n "$list" ] || no_gpu "$smi lists no device"
  if echo "$list" | grep -qi "no devices were found"; then no_gpu "$smi: no devices were found"; fi
  GPU_COUNT=$(echo "$list" | wc -l)
  GPU_NAME=$(echo "$list" | head -n 1 | cut -d, -f2 | sed 's/^ *//;s/ *$//')
  DRIVER=$(echo "$list" | head -n 1 | cut -d, -f4 | sed 's/^ *//;s/ *$//')
  local branch=${DRIVER%%.*}
  if ! [[ $branch =~ ^[0-9]+$ ]]; then
    preflight_stop "cannot read the driver version from $smi ('$DRIVER')"
  fi
  if [ "$branch" -lt "$PIPESCOPE_MIN_DRIVER_BRANCH" ]; then
    preflight_stop "driver $DRIVER on $GPU_NAME is too old: the CUDA 13 runtime needs driver" \
      "branch >= $PIPESCOPE_MIN_DRIVER_BRANCH (install a $PIPESCOPE_MIN_DRIVER_BRANCH or newer" \
      "driver, or use a machine that has one)"
  fi
}

# Sets ARCH: compute capability "9.0" -> "90", one entry per distinct GPU kind ("80;90").
preflight_arch() {
  local smi=${PIPESCOPE_NVIDIA_SMI:-nvidia-smi} caps
  ARCH=${PIPESCOPE_CUDA_ARCH:-}
  CAPS_SEEN=${ARCH:+set by PIPESCOPE_CUDA_ARCH}
  if [ -n "$ARCH" ]; then return 0; fi
  if caps=$(timeout --kill-after=1 5 "$smi" --query-gpu=compute_cap --format=csv,noheader \
    2>/dev/null) && echo "$caps" | grep -Eq '^[[:space:]]*[0-9]+\.[0-9]+[[:space:]]*$'; then
    CAPS_SEEN=$(echo "$caps" | tr -d ' ' | grep -E '^[0-9]+\.[0-9]+$' | sort -u | paste -sd' ' -)
    ARCH=$(echo "$caps" | tr -d ' .' | grep -E '^[0-9]+$' | sort -u | paste -sd';' -)
  else
    # This nvidia-smi is too old to say; CMake asks nvcc instead.
    CAPS_SEEN="not reported by nvidia-smi"
    ARCH=native
  fi
}

# Sets NVCC and CUDA_HOME; appends to MISSING what the GPU build lacks.
preflight_toolchain() {
  local d nvcc="" release
  nvcc=$(command -v nvcc 2>/dev/null || true)
  if [ -z "$nvcc" ]; then
    for d in "${CUDA_HOME:-}" /usr/local/cuda /opt/cuda; do
      if [ -n "$d" ] && [ -x "$d/bin/nvcc" ]; then
        nvcc=$d/bin/nvcc
        break
      fi
    done
  fi
  if [ -z "$nvcc" ]; then
    MISSING+=("the CUDA toolkit (nvcc: not on PATH, nor in /usr/local/cuda/bin or /opt/cuda/bin)")
    NVCC=""
    CUDA_HOME=""
    return 0
  fi
  NVCC=$nvcc
  CUDA_HOME=$(cd "$(dirname "$nvcc")/.." && pwd)
  release=$(timeout --kill-after=1 5 "$nvcc" --version 2>/dev/null |
    sed -n 's/.*release \([0-9][0-9.]*\).*/\1/p' | head -n 1 || true)
  NVCC_RELEASE=${release:-unknown}
  if [ ! -f "$CUDA_HOME/include/cuda.h" ]; then
    MISSING+=("cuda.h (the toolkit's headers: not in $CUDA_HOME/include)")
  fi
  local dirs=${PIPESCOPE_GPU_CHECK_INCLUDE_DIRS-/usr/include:/usr/local/include}
  find_header() { # HEADER: the first folder (toolkit's, then dirs) that has it
    local dir
    local -a list
    IFS=: read -r -a list <<<"$CUDA_HOME/include:$dirs"
    for dir in "${list[@]}"; do
      if [ -n "$dir" ] && [ -f "$dir/$1" ]; then
        echo "$dir/$1"
        return 0
      fi
    done
    return 1
  }
  NCCL_H=$(find_header nccl.h || true)
  [ -n "$NCCL_H" ] || MISSING+=("nccl.h (NCCL's headers: install libnccl-dev)")
  RE2_H=$(find_header re2/re2.h || true)
  [ -n "$RE2_H" ] || MISSING+=("re2/re2.h (install libre2-dev)")
  local tool
  for tool in cmake ninja c++ pkg-config; do
    command -v "$tool" >/dev/null 2>&1 || MISSING+=("$tool")
  done
  local packages=${PIPESCOPE_GPU_CHECK_PACKAGES-libsqlite3-dev zlib1g-dev libgtest-dev \
libgmock-dev libbenchmark-dev libcli11-dev libsimdjson-dev libopenblas-dev libre2-dev}
  if [ -n "$packages" ] && command -v dpkg-query >/dev/null 2>&1; then
    local pkg
    for pkg in $packages; do
      dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
        MISSING+=("package $pkg")
    done
  fi
}

# scripts/gpu-bundle's archive, unpacked in PREBUILT: its binaries are there, they were built for
# this GPU's architecture, and the loader finds what they link (the bundle's lib/, else lib-cxx/
# for an older libstdc++ than the bundle's) and what they open at run time (cuBLAS and NCCL,
# from the toolkit or a Python wheel's folder when the loader's path lacks them). Sets
# PREBUILT_ORIGIN, NVCC (empty without one: the probe is skipped) and LD_LIBRARY_PATH.
preflight_prebuilt() {
  local info=$PREBUILT/BUNDLE-INFO bin built
  [ -d "$PREBUILT" ] || preflight_stop "--prebuilt '$PREBUILT': no such folder"
  [ -f "$info" ] || preflight_stop "--prebuilt '$PREBUILT': no BUNDLE-INFO (unpack" \
    "scripts/gpu-bundle's archive there)"
  for bin in app/pipescope-cli tests/runtime/runtime_tests tests/kernels/kernels_tests \
    tests/bench/bench_cuda_kernels tests/bench/bench_cuda_run; do
    [ -x "$PREBUILT/$bin" ] || MISSING+=("$PREBUILT/$bin (not in the bundle)")
  done
  built=$(sed -n 's/^cuda architectures: //p' "$info")
  if [ "$ARCH" != native ] && ! tr ';' '\n' <<<"$built" | grep -qx "${ARCH%%;*}"; then
    preflight_stop "--prebuilt '$PREBUILT' was built for CUDA architectures '$built', this GPU" \
      "is sm_$ARCH: rebuild the bundle with PIPESCOPE_CUDA_ARCH=$ARCH scripts/gpu-bundle"
  fi
  PREBUILT_ORIGIN=$(sed -n 's/^built: //p' "$info")
  export LD_LIBRARY_PATH="$PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local version
  if ! version=$("$PREBUILT/app/pipescope-cli" --version 2>&1) && grep -q GLIBCXX <<<"$version"; then
    LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$PREBUILT/lib-cxx"
  fi
  local so dir
  local -a where
  # shellcheck disable=SC2206 # the default's globs are meant to expand
  where=(${PIPESCOPE_GPU_CHECK_LIB_DIRS:-/usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib /opt \
    /usr/local/lib})
  for so in libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
    if [ -z "${PIPESCOPE_GPU_CHECK_LIB_DIRS:-}" ] && ldconfig -p 2>/dev/null | grep -q "$so"; then
      continue
    fi
    dir=$(find "${where[@]}" -maxdepth 8 -name "$so" -print -quit 2>/dev/null | head -n 1)
    if [ -n "$dir" ]; then
      LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$dir")"
    else
      MISSING+=("$so (the cuda backend opens it at run time)")
    fi
  done
  echo "gpu-check: prebuilt $PREBUILT_ORIGIN; LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  NVCC=$(command -v nvcc 2>/dev/null || true)
  [ -n "$NVCC" ] || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; } || true
}

# preflight: all of the above; exits 2 with the reason when the GPU build cannot go on.
preflight() {
  MISSING=()
  NVCC_RELEASE=unknown
  preflight_gpu
  preflight_arch
  echo "gpu-check: $GPU_COUNT GPU(s): $GPU_NAME, driver $DRIVER (branch >=" \
    "$PIPESCOPE_MIN_DRIVER_BRANCH: ok), compute capability $CAPS_SEEN ->" \
    "CMAKE_CUDA_ARCHITECTURES=$ARCH"
  if [ -n "${PREBUILT:-}" ]; then
    preflight_prebuilt
  else
    preflight_toolchain
  fi
  if [ "${#MISSING[@]}" -gt 0 ]; then
    local m
    echo "gpu-check: the GPU build needs what this machine lacks:" >&2
    for m in "${MISSING[@]}"; do echo "  missing: $m" >&2; done
    preflight_stop "install the missing items where there is a network (this script never" \
      "installs: a lent GPU machine has none; scripts/deps.sh has the Debian list)"
  fi
  if [ -z "${PREBUILT:-}" ]; then
    echo "gpu-check: nvcc $NVCC (release $NVCC_RELEASE), $NCCL_H, $RE2_H;" \
      "ccache: $(command -v ccache || echo 'not installed (a slower build)')"
  fi
  echo "gpu-check: preflight passed in $(elapsed) s"
}
