# shellcheck shell=bash
# scripts/gpu-check's stages after the GPU tests: cuda vs cpu losses, the recorded demo run, the
# simulator against a calibrated cuda run, and the GPU benchmarks. Each is one function that adds
# its rows; every command runs under run_logged or quick (scripts/lib/gpu-check-table.sh), so the
# script's one deadline bounds them all. Sourced by scripts/gpu-check (CLI, LOGS, TMP, OUT_DIR,
# BENCH_KERNELS, BENCH_RUN set there).

# One value out of a JSON file by a dotted path (python3, else jq, else the last "key": value);
# nothing when the file or the key is missing, and never a failure.
if command -v python3 >/dev/null 2>&1 && python3 -c 'import json' 2>/dev/null; then
  JSON_TOOL=python3
elif command -v jq >/dev/null 2>&1; then
  JSON_TOOL=jq
else
  JSON_TOOL="grep"
fi
json_get() {
  case $JSON_TOOL in
    python3)
      python3 - "$1" "$2" 2>/dev/null <<'PY' || true
import json, sys
value = json.load(open(sys.argv[1]))
for key in sys.argv[2].split("."):
    value = value.get(key) if isinstance(value, dict) else None
print("" if value is None else repr(value) if isinstance(value, float) else value)
PY
      ;;
    jq) jq -r ".$2 // empty" "$1" 2>/dev/null || true ;;
    *) { grep -o "\"${2##*.}\": *[^,}]*" "$1" 2>/dev/null || true; } | tail -n 1 |
      sed 's/^[^:]*: *//; s/"//g' ;;
  esac
}
# calc EXPR with a, b, ... set: awk arithmetic; prints the result.
calc() {
  local expr=$1
  shift
  awk "$@" "BEGIN { printf \"%s\", $expr }"
}
absval() { calc 'x < 0 ? -x : x' -v x="$1"; }

SYNC_SCHEDULES=(gpipe 1f1b interleaved-1f1b looped-bfs zb-h1 zb-h2 zb-v chimera dualpipe-v)
# The schedules over two chunks per rank (as tests/runtime/CudaExecutorTest builds them).
chunks_of() {
  case $1 in
    interleaved-1f1b | looped-bfs | zb-v | dualpipe-v) echo 2 ;;
    *) echo 1 ;;
  esac
}
# Per-step losses of a file's one run (sqlite3 when present), else nothing.
step_losses() {
  command -v sqlite3 >/dev/null 2>&1 || return 0
  sqlite3 -readonly "$1" "SELECT printf('%.17g', value) FROM metric WHERE name='loss' ORDER BY \
    step, rowid" 2>/dev/null | paste -sd' ' - || true
}
# A stage-sized transformer, so that the GPU, not the host, sets the op times.
MODEL=(--model transformer --hidden 512 --seq 256 --mb-size 4 --heads 8)
trim() { sed 's/^ *//; s/ *$//' <<<"$1"; }

stage_losses() {
  quick 30 "$CLI" schedules >"$LOGS/schedules.log" 2>&1 || true
  for s in "${SYNC_SCHEDULES[@]}"; do
    if ! grep -q "^$s " "$LOGS/schedules.log"; then
      row "loss cuda = cpu: $s" FAIL "not in 'pipescope-cli schedules'" "<= 1e-4 rel"
      continue
    fi
    v=$(chunks_of "$s")
    loss=()
    steps=()
    ok=1
    for b in cuda cpu; do
      db=$TMP/loss-$s-$b.sqlite
      if ! run_logged "loss-$s-$b" 180 "$CLI" run --backend "$b" --schedule "$s" --stages 4 \
        --microbatches 8 --chunks "$v" --steps 3 --model transformer --db "$db"; then
        tail -n 5 "$LOGS/loss-$s-$b.log"
        row "loss cuda = cpu: $s (v=$v)" FAIL "the $b run failed (loss-$s-$b.log)" "<= 1e-4 rel"
        ok=0
        break
      fi
      quick 30 "$CLI" report "$db" --json >"$TMP/report-$s-$b.json" 2>>"$LOGS/loss-$s-$b.log" || true
      loss+=("$(json_get "$TMP/report-$s-$b.json" metrics.loss)")
      steps+=("$(step_losses "$db")")
    done
    [ "$ok" = 1 ] || continue
    if [ -z "${loss[0]}" ] || [ -z "${loss[1]}" ]; then
      row "loss cuda = cpu: $s (v=$v)" FAIL "no loss in the report (cuda '${loss[0]}', cpu '${loss[1]}')" \
        "<= 1e-4 rel"
      continue
    fi
    rel=$(awk -v a="${loss[0]}" -v b="${loss[1]}" 'BEGIN { d = a - b; if (d < 0) d = -d
      s = b < 0 ? -b : b; if (s == 0) s = 1; printf "%.6g", d / s }')
    # Every step's loss too, where sqlite3 can read them: the worst relative difference.
    worst=$rel
    if [ -n "${steps[0]}" ] && [ -n "${steps[1]}" ]; then
      worst=$(awk -v a="${steps[0]}" -v b="${steps[1]}" 'BEGIN {
        n = split(a, x, " "); m = split(b, y, " "); w = 0
        if (n != m) { print 1e9; exit }
        for (i = 1; i <= n; i++) { d = x[i] - y[i]; if (d < 0) d = -d
          s = y[i] < 0 ? -y[i] : y[i]; if (s == 0) s = 1; if (d / s > w) w = d / s }
        print w }')
    fi
    figure=$(calc 'sprintf("final %.6g vs %.6g, rel %.2g; worst step rel %.2g", a, b, r, w)' \
      -v a="${loss[0]}" -v b="${loss[1]}" -v r="$rel" -v w="$worst")
    if [ "$(calc '(r <= 1e-4 && w <= 1e-4) ? 1 : 0' -v r="$rel" -v w="$worst")" = 1 ]; then
      row "loss cuda = cpu: $s (v=$v)" PASS "$figure" "<= 1e-4 rel"
    else
      row "loss cuda = cpu: $s (v=$v)" FAIL "$figure" "<= 1e-4 rel"
    fi
  done
}

stage_demo() {
  DEMO=$OUT_DIR/gpu-check.sqlite
  rm -f "$DEMO" "$DEMO-wal" "$DEMO-shm" "$DEMO-journal"
  for s in 1f1b zb-h1; do
    if ! run_logged "demo-$s" 180 "$CLI" run --backend cuda --schedule "$s" --stages 4 \
      --microbatches 8 --steps 4 "${MODEL[@]}" --db "$DEMO"; then
      tail -n 5 "$LOGS/demo-$s.log"
      row "demo run: $s" FAIL "the run failed (demo-$s.log)" "complete, source cuda"
      continue
    fi
    cat "$LOGS/demo-$s.log"
    id=$(sed -n 's/^run \([0-9][0-9]*\): .*/\1/p' "$LOGS/demo-$s.log" | head -n 1)
    quick 30 "$CLI" report "$DEMO" --run "${id:-1}" --json >"$TMP/demo-$s.json" 2>/dev/null || true
    src=$(json_get "$TMP/demo-$s.json" run.source)
    status=$(json_get "$TMP/demo-$s.json" run.status)
    stepns=$(json_get "$TMP/demo-$s.json" step_time_ns)
    bubble=$(json_get "$TMP/demo-$s.json" bubble_ratio)
    figure="run ${id:-?}: source ${src:-?}, ${status:-?}"
    [ -n "$stepns" ] && figure+=$(calc 'sprintf(", step %.3f ms", t / 1e6)' -v t="$stepns")
    [ -n "$bubble" ] && figure+=$(calc 'sprintf(", bubble %.1f %%", b * 100)' -v b="$bubble")
    if [ "$src" = cuda ] && [ "$status" = complete ]; then
      row "demo run: $s" PASS "$figure" "complete, source cuda"
    else
      row "demo run: $s" FAIL "$figure" "complete, source cuda"
    fi
  done
  if [ -f "$DEMO" ]; then
    size=$(wc -c <"$DEMO")
    if [ "$size" -le $((2 * 1024 * 1024)) ]; then
      row "gpu-check.sqlite" PASS "$((size / 1024)) KiB" "<= 2 MiB (a test fixture)"
    else
      row "gpu-check.sqlite" FAIL "$((size / 1024)) KiB" "<= 2 MiB (a test fixture)"
    fi
  fi
}

# 1F1B and ZB-H1 with the 4 ranks sharing the GPU (the prediction assumes one GPU each), and 1F1B
# with --sm-split: each rank on its own green context of a quarter of the SMs, calibrated there.
stage_compare_sim() {
  local split which
  for s in 1f1b zb-h1 1f1b+sm-split; do
    split=()
    [ "$s" = "${s%%+*}" ] || split=(--sm-split)
    db=$TMP/compare-$s.sqlite
    if ! run_logged "compare-$s" 300 "$CLI" run --backend cuda --schedule "${s%%+*}" --stages 4 \
      --microbatches 8 --steps 4 "${MODEL[@]}" "${split[@]}" --compare-sim \
      --calibrate-out "$LOGS/costs-$s.json" --db "$db"; then
      tail -n 5 "$LOGS/compare-$s.log"
      row "sim vs measured: $s" FAIL "the run failed (compare-$s.log)" "-"
      continue
    fi
    cat "$LOGS/compare-$s.log"
    # "  steady step   1.23 ms   1.30 ms   -5.38 %" (the median of steps 1..: step 0 holds one-time
    # costs the simulator does not model), else "  step time ..." (the mean over every step);
    # "  bubble   12.5 %   14.0 %   -1.50 points".
    which="steady step"
    grep -q '^  steady step ' "$LOGS/compare-$s.log" || which="step time"
    step_err=$(awk -v w="$which" '$1 " " $2 == w { print $(NF - 1); exit }' "$LOGS/compare-$s.log")
    step_fig=$(awk -v w="$which" '$1 " " $2 == w { print w ", " $3 " " $4 " predicted vs " $5 \
      " " $6 " measured"; exit }' "$LOGS/compare-$s.log")
    bub_err=$(awk '$1 == "bubble" { print $(NF - 1); exit }' "$LOGS/compare-$s.log")
    bub_fig=$(awk '$1 == "bubble" { print $2 " % predicted vs " $4 " % measured"; exit }' \
      "$LOGS/compare-$s.log")
    if [ -z "$step_err" ]; then
      row "sim vs measured step time: $s" FAIL "no prediction printed (compare-$s.log)" "<= 5 %"
    elif [ "$(calc '(e <= 5) ? 1 : 0' -v e="$(absval "$step_err")")" = 1 ]; then
      row "sim vs measured step time: $s" PASS "$step_err % ($step_fig)" "<= 5 %"
    else
      row "sim vs measured step time: $s" FAIL "$step_err % ($step_fig)" "<= 5 %"
    fi
    if [ -z "$bub_err" ]; then
      row "sim vs measured bubble: $s" FAIL "no prediction printed (compare-$s.log)" "<= 3 points"
    elif [ "$(calc '(e <= 3) ? 1 : 0' -v e="$(absval "$bub_err")")" = 1 ]; then
      row "sim vs measured bubble: $s" PASS "$bub_err points ($bub_fig)" "<= 3 points"
    else
      row "sim vs measured bubble: $s" FAIL "$bub_err points ($bub_fig)" "<= 3 points"
    fi
  done
}

stage_bench_kernels() {
  rc=0
  run_logged bench_cuda_kernels 240 "$BENCH_KERNELS" --benchmark_min_time=0.05 || rc=$?
  if [ "$rc" = 0 ]; then
    cat "$LOGS/bench_cuda_kernels.log"
    found=0
    # "linearForward fp32 4096x1024->4096 on NAME: ... ratio 0.953 (goal >= 0.9 met)"
    while IFS='|' read -r shape ratio verdict; do
      found=1
      if [ "$verdict" = met ]; then result=PASS; else result=FAIL; fi
      row "stage GEMM vs bare cuBLAS, fp32 $shape" "$result" "$ratio" ">= 0.9"
    done < <(sed -n 's/^linearForward fp32 \([^ ]*\) on .*: ratio \([0-9.]*\) (goal >= 0\.9 \([A-Za-z]*\)).*/\1|\2|\3/p' \
      "$LOGS/bench_cuda_kernels.log")
    if [ "$found" = 0 ] || grep -q "ERROR OCCURRED\|no CUDA device" "$LOGS/bench_cuda_kernels.log"; then
      row "bench_cuda_kernels" FAIL "no ratio measured or a benchmark failed" ">= 0.9"
    fi
  else
    tail -n 10 "$LOGS/bench_cuda_kernels.log"
    row "bench_cuda_kernels" FAIL "exit status $rc (bench_cuda_kernels.log)" "-"
  fi
}

stage_bench_run() {
  rc=0
  run_logged bench_cuda_run 300 "$BENCH_RUN" --benchmark_min_time=0.05 || rc=$?
  if [ "$rc" = 0 ]; then
    cat "$LOGS/bench_cuda_run.log"
    found=0
    # "goal | CHECK | FIGURE | TARGET | PASS" and "info | CHECK | FIGURE | - | -"
    while IFS='|' read -r kind check figure target verdict; do
      found=1
      if [ "$(trim "$kind")" = goal ]; then
        row "$(trim "$check")" "$(trim "$verdict")" "$(trim "$figure")" "$(trim "$target")"
      else
        row "$(trim "$check")" - "$(trim "$figure")" "-"
      fi
    done < <(grep -E '^(goal|info) \|' "$LOGS/bench_cuda_run.log")
    if [ "$found" = 0 ] || grep -q "ERROR OCCURRED\|no CUDA device" "$LOGS/bench_cuda_run.log"; then
      grep "ERROR OCCURRED\|no CUDA device" "$LOGS/bench_cuda_run.log" || true
      row "bench_cuda_run" FAIL "a benchmark failed or measured nothing (bench_cuda_run.log)" "-"
    fi
  else
    tail -n 10 "$LOGS/bench_cuda_run.log"
    row "bench_cuda_run" FAIL "exit status $rc (bench_cuda_run.log)" "-"
  fi
}
