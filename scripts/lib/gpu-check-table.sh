# shellcheck shell=bash
# scripts/gpu-check's summary table, its JSON copy and the one deadline every stage shares.
# Sourced by scripts/gpu-check after T_START, DEADLINE_S and DEADLINE_AT are set; STAGES (the
# planned stage names, in order) is set by the caller before the first begin_stage.
# Why one deadline: a lent GPU machine gives ~15 minutes in all and 10 minutes a command, so the
# script must end inside its budget with what it measured so far instead of being killed blind.

ROWS=()
FAILED=0
DEADLINE_HIT=0
STAGE_AT=-1 # index in STAGES of the stage now running (-1 before the first)
elapsed() { echo $(($(date +%s) - T_START)); }
# shellcheck disable=SC2153 # DEADLINE_AT is set by scripts/gpu-check before it sources this
seconds_left() { echo $((DEADLINE_AT - $(date +%s))); }
say() { printf '\n== %s\n' "$*"; }

# row CHECK RESULT FIGURE GOAL. RESULT is PASS, FAIL, - (a figure without a goal) or
# "not run (deadline)"; FAIL and not run both fail the script.
row() {
  ROWS+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4")
  case $2 in FAIL | not\ run*) FAILED=1 ;; esac
  printf '   %-5s %s: %s\n' "$2" "$1" "$3"
}

# begin_stage NAME: NAME must be in STAGES. Past the deadline, stops the script (deadline_stop).
begin_stage() {
  local i
  for i in "${!STAGES[@]}"; do
    if [ "${STAGES[$i]}" = "$1" ]; then STAGE_AT=$i; fi
  done
  if [ "$(seconds_left)" -le 0 ]; then deadline_stop; fi
  say "$1 ($(seconds_left) s left of ${DEADLINE_S} s)"
}

# deadline_stop: the rest of the running stage and every later one become "not run (deadline)"
# rows; the script exits 3 (on_exit prints the table and writes the JSON).
deadline_stop() {
  DEADLINE_HIT=1
  local i first=$((STAGE_AT < 0 ? 0 : STAGE_AT))
  for ((i = first; i < ${#STAGES[@]}; i++)); do
    row "${STAGES[$i]}" "not run (deadline)" "deadline ${DEADLINE_S} s passed at $(elapsed) s" "-"
  done
  exit 3
}

# run_logged NAME CAP CMD...: CMD under `timeout` for CAP seconds or what is left of the deadline,
# whichever is less, output to $LOGS/NAME.log; returns CMD's status (124/137: timed out). Past
# the deadline it runs nothing and stops the script.
run_logged() {
  local name=$1 cap=$2 left rc=0
  shift 2
  left=$(seconds_left)
  if [ "$left" -le 0 ]; then deadline_stop; fi
  local secs=$((cap < left ? cap : left))
  timeout --kill-after=2 "$secs" "$@" >"$LOGS/$name.log" 2>&1 || rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    if [ "$secs" -lt "$cap" ]; then
      echo "gpu-check: $name: stopped at the deadline after $secs s" >>"$LOGS/$name.log"
    else
      echo "gpu-check: $name: timed out after $secs s" >>"$LOGS/$name.log"
    fi
  fi
  return "$rc"
}

# quick CAP CMD...: a short helper command (the CLI's report, schedules) under a timeout too, so
# that nothing the script starts can hang; output to stdout.
quick() {
  local cap=$1 left
  shift
  left=$(seconds_left)
  ((left < 1)) && left=1
  timeout --kill-after=2 "$((cap < left ? cap : left))" "$@"
}

print_summary() {
  local w1=5 w2=6 w3=6 r c res fig goal
  for r in "${ROWS[@]}"; do
    IFS=$'\t' read -r c res fig goal <<<"$r"
    ((${#c} > w1)) && w1=${#c}
    ((${#res} > w2)) && w2=${#res}
    ((${#fig} > w3)) && w3=${#fig}
  done
  echo
  echo "== gpu-check summary: $GPU_COUNT x $GPU_NAME, driver $DRIVER, sm_$ARCH, $(elapsed) s" \
    "of a ${DEADLINE_S} s deadline"
  printf "%-${w1}s  %-${w2}s  %-${w3}s  %s\n" check result figure goal
  printf "%-${w1}s  %-${w2}s  %-${w3}s  %s\n" "$(printf '%*s' "$w1" '' | tr ' ' -)" \
    "$(printf '%*s' "$w2" '' | tr ' ' -)" "$(printf '%*s' "$w3" '' | tr ' ' -)" ----
  for r in "${ROWS[@]}"; do
    IFS=$'\t' read -r c res fig goal <<<"$r"
    printf "%-${w1}s  %-${w2}s  %-${w3}s  %s\n" "$c" "$res" "$fig" "$goal"
  done
}

# A JSON string of $1 (quotes, backslashes and control characters escaped).
json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  printf '"%s"' "$(printf '%s' "$s" | tr -d '\000-\010\013\014\016-\037')"
}

# write_json FILE EXIT: the table's rows and the run's facts, next to gpu-check.sqlite.
write_json() {
  local file=$1 code=$2 r c res fig goal sep=""
  {
    printf '{\n  "date": %s,\n' "$(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
    printf '  "device": %s,\n  "gpu_count": %s,\n' "$(json_string "$GPU_NAME")" "${GPU_COUNT:-0}"
    printf '  "driver": %s,\n  "cuda_architectures": %s,\n' "$(json_string "$DRIVER")" \
      "$(json_string "$ARCH")"
    printf '  "deadline_s": %s,\n  "elapsed_s": %s,\n  "exit": %s,\n' "$DEADLINE_S" "$(elapsed)" \
      "$code"
    printf '  "rows": ['
    for r in "${ROWS[@]}"; do
      IFS=$'\t' read -r c res fig goal <<<"$r"
      printf '%s\n    {"check": %s, "result": %s, "figure": %s, "goal": %s}' "$sep" \
        "$(json_string "$c")" "$(json_string "$res")" "$(json_string "$fig")" \
        "$(json_string "$goal")"
      sep=","
    done
    printf '\n  ]\n}\n'
  } >"$file.tmp" && mv "$file.tmp" "$file"
}

# The EXIT trap: the table, its JSON, the exit status (0 all passed, 1 a check failed, 3 the
# deadline passed; 2 is the preflight's, which stops before this trap is set).
on_exit() {
  local rc=$? code=0
  trap - EXIT
  rm -rf "$TMP"
  if [ "$rc" -ne 0 ] && [ "$FAILED" = 0 ]; then
    row "gpu-check itself" FAIL "stopped early (exit $rc); see $LOGS" "-"
  fi
  print_summary
  if [ "$DEADLINE_HIT" = 1 ]; then
    code=3
  elif [ "$FAILED" != 0 ]; then
    code=1
  fi
  write_json "$JSON_OUT" "$code" || echo "gpu-check: could not write $JSON_OUT" >&2
  case $code in
    0) echo "gpu-check: all checks passed (logs in $LOGS; table in $JSON_OUT)" ;;
    3) echo "gpu-check: DEADLINE of ${DEADLINE_S} s passed (logs in $LOGS; table in $JSON_OUT)" ;;
    *) echo "gpu-check: FAILED (logs in $LOGS; table in $JSON_OUT)" ;;
  esac
  exit "$code"
}
