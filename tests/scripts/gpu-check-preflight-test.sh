#!/usr/bin/env bash
# scripts/gpu-check's preflight and deadline without a GPU (issue 32): a fake nvidia-smi on PATH
# reports an H200 with a chosen driver and compute capability, a fake toolkit folder holds nvcc,
# cuda.h and nccl.h, a fake include folder RE2's header. Each case runs the real script under a
# generous `timeout` (a hang fails the test, no timing is asserted) and checks its message, exit
# status and table. Usage: gpu-check-preflight-test.sh SOURCE_DIR
set -euo pipefail
SRC=${1:?usage: gpu-check-preflight-test.sh SOURCE_DIR}
SCRIPT=$SRC/scripts/gpu-check
T=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILS=0
fail() {
  echo "FAIL: $*"
  FAILS=$((FAILS + 1))
}

# The fakes: nvidia-smi answering from FAKE_DRIVER / FAKE_CC; a toolkit; build tools that are
# never run (the deadline stops the script before configure).
mkdir -p "$T/bin" "$T/cuda/bin" "$T/cuda/include" "$T/inc/re2"
cat >"$T/bin/nvidia-smi" <<'SH'
#!/bin/sh
case "$*" in
  *compute_cap*) echo "$FAKE_CC" ;;
  *) echo "0, NVIDIA H200, 143771 MiB, $FAKE_DRIVER" ;;
esac
SH
printf '#!/bin/sh\necho "Cuda compilation tools, release 13.0, V13.0.48"\n' >"$T/cuda/bin/nvcc"
for tool in cmake ninja c++ pkg-config; do printf '#!/bin/sh\nexit 0\n' >"$T/bin/$tool"; done
chmod +x "$T/bin/"* "$T/cuda/bin/nvcc"
touch "$T/cuda/include/cuda.h" "$T/cuda/include/nccl.h" "$T/inc/re2/re2.h"
export PATH="$T/bin:$T/cuda/bin:$PATH"
export PIPESCOPE_GPU_CHECK_INCLUDE_DIRS=$T/inc PIPESCOPE_GPU_CHECK_PACKAGES=""
export PIPESCOPE_GPU_BUILD=$T/build PIPESCOPE_GPU_CHECK_OUT=$T/out
export PIPESCOPE_FIRST_LIGHT_PROBE=$T/no-probe.cu
unset PIPESCOPE_CUDA_ARCH PIPESCOPE_GPU_CHECK_FAKE_STAGE PIPESCOPE_NVIDIA_SMI

# run_case NAME ARGS...: the script's output in $T/NAME.out, its exit status in RC.
run_case() {
  local name=$1
  shift
  RC=0
  timeout 30 "$SCRIPT" "$@" >"$T/$name.out" 2>&1 || RC=$?
  if [ "$RC" = 124 ]; then fail "$name: gpu-check did not finish within 30 s"; fi
}
expect() { # NAME PATTERN: the output of NAME holds PATTERN (grep -E)
  grep -Eq -- "$2" "$T/$1.out" || fail "$1: no line matching '$2' in:$(printf '\n')$(cat "$T/$1.out")"
}
expect_rc() { [ "$RC" = "$2" ] || fail "$1: exit $RC, expected $2"; }

# 1. No nvidia-smi: the clear message, exit 2, nothing built.
PIPESCOPE_NVIDIA_SMI=pipescope-no-such-nvidia-smi run_case no-smi
expect_rc no-smi 2
expect no-smi '^gpu-check: no NVIDIA GPU: pipescope-no-such-nvidia-smi is not installed'
[ ! -e "$T/build" ] || fail "no-smi: $T/build was created"

# 2. An H200 on driver 575: stops at the preflight with the driver message, even with --deadline 1.
FAKE_DRIVER=575.57.08 FAKE_CC=9.0 run_case old-driver --deadline 1
expect_rc old-driver 2
expect old-driver 'driver 575\.57\.08 on NVIDIA H200 is too old: the CUDA 13 runtime needs driver branch >= 580'
expect old-driver 'stopped at the preflight'
[ ! -e "$T/build" ] || fail "old-driver: $T/build was created"

# 3. Driver 580 and compute capability 9.0: architecture 90, the fake toolkit found.
FAKE_DRIVER=580.65.06 FAKE_CC=9.0 run_case driver-580 --preflight-only
expect_rc driver-580 0
expect driver-580 'compute capability 9\.0 -> CMAKE_CUDA_ARCHITECTURES=90$'
expect driver-580 "nvcc $T/cuda/bin/nvcc \(release 13\.0\), $T/cuda/include/nccl\.h, $T/inc/re2/re2\.h"
expect driver-580 'preflight passed'
[ ! -e "$T/build" ] || fail "driver-580: --preflight-only created $T/build"

# 4. Two GPU kinds: one architecture each, in order.
FAKE_DRIVER=590.10 FAKE_CC=$'9.0\n8.0\n9.0' run_case two-kinds --preflight-only
expect_rc two-kinds 0
expect two-kinds 'CMAKE_CUDA_ARCHITECTURES=80;90$'

# 5. No nccl.h and no RE2: each named, exit 2, nothing installed or built.
rm "$T/cuda/include/nccl.h" "$T/inc/re2/re2.h"
FAKE_DRIVER=580.65.06 FAKE_CC=9.0 run_case missing --preflight-only
expect_rc missing 2
expect missing 'missing: nccl\.h'
expect missing 'missing: re2/re2\.h \(install libre2-dev\)'
touch "$T/cuda/include/nccl.h" "$T/inc/re2/re2.h"

# 6. --deadline 1 with a slow first stage: the table so far, every later stage "not run
# (deadline)", exit 3, and the same rows in gpu-check.json.
FAKE_DRIVER=580.65.06 FAKE_CC=9.0 PIPESCOPE_GPU_CHECK_FAKE_STAGE="sleep 20" \
  run_case deadline --deadline 1
expect_rc deadline 3
expect deadline '^== gpu-check summary: 1 x NVIDIA H200, driver 580\.65\.06, sm_90'
for stage in "first-light probe" configure build "GPU tests: kernels_tests" bench_cuda_run; do
  expect deadline "^$stage +not run \(deadline\) +deadline 1 s passed"
done
expect deadline 'DEADLINE of 1 s passed'
JSON=$T/out/gpu-check.json
if [ ! -f "$JSON" ]; then
  fail "deadline: no $JSON"
elif command -v python3 >/dev/null 2>&1; then
  python3 - "$JSON" <<'PY' || fail "deadline: $JSON does not hold the table's rows"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {r["check"]: r for r in doc["rows"]}
assert doc["exit"] == 3 and doc["deadline_s"] == 1 and doc["cuda_architectures"] == "90", doc
assert rows["build"]["result"] == "not run (deadline)", rows
assert rows["bench_cuda_run"]["result"] == "not run (deadline)", rows
assert rows["preflight"]["result"] == "PASS" and rows["preflight"]["goal"] == "<= 10 s", rows
PY
else
  grep -q '"check": "build", "result": "not run (deadline)"' "$JSON" || fail "deadline: $JSON"
fi

# 7. The whole script on fakes (nvcc writes a probe that prints a copy rate; the GPU tests are
# scripts printing gtest output, one with a skip; no CLI): the probe's lines and figure, the
# build time, a skip failing with its reason beside it, every later stage failing, no hang.
cat >"$T/cuda/bin/nvcc" <<'SH'
#!/bin/sh
case "$*" in *--version*) echo "Cuda compilation tools, release 13.0, V13.0.48"; exit 0 ;; esac
out=""
while [ $# -gt 0 ]; do if [ "$1" = -o ]; then out=$2; fi; shift; done
printf '#!/bin/sh\necho "on-device cudaMemcpyAsync 16 MiB: 12.5 us each"\n' >"$out"
chmod +x "$out"
SH
touch "$T/probe.cu"
mkdir -p "$T/build/tests/kernels" "$T/build/tests/runtime"
cat >"$T/build/tests/kernels/kernels_tests" <<'SH'
#!/bin/sh
printf '%s\n' '[ RUN      ] CudaGreenContext.Streams' 'x.cpp:9: Skipped' \
  'cuGreenCtxStreamCreate is NULL' '[  SKIPPED ] CudaGreenContext.Streams (0 ms)' \
  '[ RUN      ] CudaGemm.Nn' '[       OK ] CudaGemm.Nn (1 ms)' '[  PASSED  ] 1 test.' \
  '[  SKIPPED ] 1 test, listed below:' '[  SKIPPED ] CudaGreenContext.Streams'
SH
printf '#!/bin/sh\necho "[ RUN      ] CudaAlloc.Reuse"\necho "[       OK ] CudaAlloc.Reuse (0 ms)"\n' \
  >"$T/build/tests/runtime/runtime_tests"
chmod +x "$T/cuda/bin/nvcc" "$T/build/tests/kernels/kernels_tests" "$T/build/tests/runtime/runtime_tests"
FAKE_DRIVER=580.65.06 FAKE_CC=9.0 PIPESCOPE_FIRST_LIGHT_PROBE=$T/probe.cu run_case fakes --deadline 25
expect_rc fakes 1
expect fakes '^on-device cudaMemcpyAsync 16 MiB: 12\.5 us each'
expect fakes '^first-light probe +PASS +exit 0; 12\.5 us per 16 MiB copy'
expect fakes '^gpu-check: build took [0-9]+ s'
expect fakes '^GPU tests: kernels_tests +FAIL +1 passed, 0 failed, 1 skipped; skipped CudaGreenContext\.Streams: cuGreenCtxStreamCreate is NULL'
expect fakes '^GPU tests: runtime_tests +PASS +1 passed, 0 failed, 0 skipped'
expect fakes '^bench_cuda_run +FAIL'

# 8. A bad --deadline: one line naming the value, exit 2.
run_case bad-deadline --deadline soon
expect_rc bad-deadline 2
expect bad-deadline "^gpu-check: --deadline 'soon': expected a whole number of seconds"

# 9. --prebuilt (scripts/gpu-bundle's archive unpacked): a folder that is none, a bundle built for
# another architecture, and a good one, whose rows say prebuilt and whose fake tests run.
FAKE_DRIVER=580.65.06 FAKE_CC=9.0 run_case prebuilt-none --prebuilt "$T/no-bundle" --preflight-only
expect_rc prebuilt-none 2
expect prebuilt-none "^gpu-check: --prebuilt '$T/no-bundle': no such folder"
B=$T/bundle
mkdir -p "$B/app" "$B/tests/bench" "$B/lib"
cp -r "$T/build/tests/kernels" "$T/build/tests/runtime" "$B/tests/"
printf '#!/bin/sh
echo "pipescope-cli 0"
' >"$B/app/pipescope-cli"
printf '#!/bin/sh
exit 1
' | tee "$B/tests/bench/bench_cuda_kernels" >"$B/tests/bench/bench_cuda_run"
chmod +x "$B/app/pipescope-cli" "$B/tests/bench/"*
printf 'built: commit abc, 2026-12-04\ncuda architectures: 80\n' >"$B/BUNDLE-INFO"
FAKE_DRIVER=580.65.06 FAKE_CC=9.0 run_case prebuilt-arch --prebuilt "$B" --preflight-only
expect_rc prebuilt-arch 2
expect prebuilt-arch "was built for CUDA architectures '80', this GPU is sm_90: rebuild the bundle with PIPESCOPE_CUDA_ARCH=90 scripts/gpu-bundle"
printf 'built: commit abc, 2026-12-04\ncuda architectures: 90\n' >"$B/BUNDLE-INFO"
# No toolkit packages or RE2 are needed with a bundle; libcublas and NCCL are looked for.
rm "$T/inc/re2/re2.h"
mkdir -p "$T/cuda-libs/wheel"
touch "$T/cuda-libs/libcublas.so.13" "$T/cuda-libs/libcublasLt.so.13"
FAKE_DRIVER=580.65.06 FAKE_CC=9.0 PIPESCOPE_GPU_CHECK_LIB_DIRS=$T/cuda-libs \
  run_case prebuilt-no-nccl --prebuilt "$B" --preflight-only
expect_rc prebuilt-no-nccl 2
expect prebuilt-no-nccl 'missing: libnccl\.so\.2 \(the cuda backend opens it at run time\)'
touch "$T/cuda-libs/wheel/libnccl.so.2"
FAKE_DRIVER=580.65.06 FAKE_CC=9.0 PIPESCOPE_FIRST_LIGHT_PROBE=$T/probe.cu \
  PIPESCOPE_GPU_CHECK_LIB_DIRS=$T/cuda-libs run_case prebuilt --prebuilt "$B" --deadline 25
expect prebuilt "LD_LIBRARY_PATH=$B/lib:.*:$T/cuda-libs/wheel\$"
expect prebuilt "^gpu-check: prebuilt commit abc, 2026-12-04; LD_LIBRARY_PATH=$B/lib"
expect prebuilt '^configure +- +prebuilt: commit abc'
expect prebuilt '^GPU tests: runtime_tests +PASS +1 passed'
grep -q 'build took' "$T/prebuilt.out" && fail "prebuilt: it built"
touch "$T/inc/re2/re2.h"

if [ "$FAILS" != 0 ]; then
  echo "gpu-check preflight test: $FAILS failure(s)"
  exit 1
fi
echo "gpu-check preflight test: all cases passed"
