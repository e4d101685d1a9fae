#!/bin/sh
# matexp GPU bundle: tests, then benchmarks. Usage: run.sh OUTDIR [FILTER...]
# A FILTER is a shell pattern matched against names like tests/matexp-gpu--gpu or
# bench/gpu_spmv (and their last part); only matching binaries run.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: run.sh OUTDIR [FILTER...]}
shift
mkdir -p "$OUT/records" "$OUT/tests" "$OUT/bench"
OUT=$(cd "$OUT" && pwd)
# Leave NVLink multicast off (shared hosts); nothing here uses it.
export NCCL_NVLS_ENABLE=0
export MATEXP_COMMIT="$(cat "$HERE/COMMIT")"
export MATEXP_BENCH_RECORDS="$OUT/records"
export CRITERION_HOME="$OUT/criterion"
export RUST_BACKTRACE=1

selected() {
  [ "$#" -gt 1 ] || return 0
  name=$1; shift
  for f in "$@"; do
    case "$name" in $f) return 0 ;; esac
    case "${name##*/}" in $f) return 0 ;; esac
  done
  return 1
}

nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || echo "nvidia-smi not available" > "$OUT/nvidia-smi.txt"
nvidia-smi topo -m >> "$OUT/nvidia-smi.txt" 2>&1 || true

# A hung binary is stopped (exit 124) so that the others still run and the logs come back.
limit() { if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi; }
# Sanitizer mode: MATEXP_SANITIZE=memcheck,racecheck,initcheck,synccheck runs every test
# binary under compute-sanitizer with each tool (benchmarks are skipped), writes
# OUT/sanitize-<tool>.log with one verdict line per tool, and exits 0 only if every tool
# reports zero errors and every binary passed. All tools run in this one invocation:
# binaries matching MATEXP_SANITIZE_ALONE (default *failure_paths*: they compare the free
# device memory before and after) first, one at a time; then the others, MATEXP_SANITIZE_JOBS
# (tool, binary) pairs at once. Binaries matching MATEXP_SANITIZE_NO_API (default
# *failure_paths*) provoke out-of-memory refusals on purpose, so their API errors are not
# reported (memory errors still are). The tests take their small problem sizes
# (MATEXP_GPU_TEST_SCALE=small: every code path, few rows), and racecheck checks only the
# project's kernels (MATEXP_SANITIZE_KERNELS=ours, the names of sanitize-kernels.txt): it
# finds shared-memory hazards, and cuBLAS / cuSPARSE kernels are neither ours nor reliably
# tracked by it ("Internal Sanitizer Error: Detected a failure to track a kernel launch").
if [ -n "${MATEXP_SANITIZE:-}" ]; then
  CS=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
  [ -x "$CS" ] || CS=$(command -v compute-sanitizer || true)
  if [ -z "$CS" ]; then
    echo "MATEXP_SANITIZE: compute-sanitizer not found (set COMPUTE_SANITIZER to its path)" >&2
    exit 2
  fi
  tools=$(echo "$MATEXP_SANITIZE" | tr ',' ' ')
  for tool in $tools; do
    case "$tool" in
      memcheck|racecheck|initcheck|synccheck) ;;
      *) echo "MATEXP_SANITIZE: unknown tool '$tool' (memcheck, racecheck, initcheck, synccheck)" >&2; exit 2 ;;
    esac
  done
  case "${MATEXP_SANITIZE_KERNELS:-}" in
    ''|ours|all) ;;
    *) echo "MATEXP_SANITIZE_KERNELS: 'ours' or 'all', not '$MATEXP_SANITIZE_KERNELS'" >&2; exit 2 ;;
  esac
  export MATEXP_GPU_TEST_SCALE=${MATEXP_GPU_TEST_SCALE:-small}
  # The project's kernels as one anchored alternation of exact names (the regex key matches
  # anywhere in a name, so the anchors keep vendor kernels that contain one of ours out).
  ours=""
  if [ -s "$HERE/sanitize-kernels.txt" ]; then
    ours="^($(paste -s -d '|' "$HERE/sanitize-kernels.txt"))\$"
    nours=$(grep -c . "$HERE/sanitize-kernels.txt")
  fi
  kernels_of() {
    if [ -n "${MATEXP_SANITIZE_KERNELS:-}" ]; then echo "$MATEXP_SANITIZE_KERNELS"
    elif [ "$1" = racecheck ]; then echo ours
    else echo all; fi
  }
  jobs=${MATEXP_SANITIZE_JOBS:-1}
  alone=${MATEXP_SANITIZE_ALONE:-*failure_paths*}
  timeout=${MATEXP_SANITIZE_TIMEOUT:-3600}
  status=0
  : > "$OUT/sanitize-summary.txt"
  # One part per (tool, binary): OUT/.sanitize-<tool>/NNN.{name,exe,log,rc}.
  for tool in $tools; do
    if [ "$(kernels_of "$tool")" = ours ] && [ -z "$ours" ]; then
      echo "MATEXP_SANITIZE: $tool would check the project's kernels only, but $HERE/sanitize-kernels.txt lists none (MATEXP_SANITIZE_KERNELS=all checks every kernel)" >&2
      exit 2
    fi
    parts="$OUT/.sanitize-$tool"
    rm -rf "$parts"; mkdir -p "$parts"
    k=0
    for exe in "$HERE"/tests/*; do
      [ -x "$exe" ] || continue
      name=tests/${exe##*/}
      selected "$name" "$@" || continue
      k=$((k + 1))
      part="$parts/$(printf '%03d' "$k")"
      echo "$name" > "$part.name"
      echo "$exe" > "$part.exe"
    done
  done
  # sanitize_part TOOL PART SECONDS: one binary under one tool; PART.log and PART.rc.
  # One test thread per binary (MATEXP_SANITIZE_TEST_THREADS): launches from several host
  # threads at once made racecheck report "failure to track a kernel launch" and slowed every
  # tool; the binaries run side by side instead (MATEXP_SANITIZE_JOBS).
  s_threads="--test-threads=${MATEXP_SANITIZE_TEST_THREADS:-1}"
  sanitize_part() {
    s_exe=$(cat "$2.exe")
    s_api=""
    case "${s_exe##*/}" in ${MATEXP_SANITIZE_NO_API:-*failure_paths*}) s_api="--report-api-errors no" ;; esac
    if [ "$(kernels_of "$1")" = ours ]; then
      limit "$3" "$CS" --tool "$1" $s_api --kernel-name "regex=$ours" --error-exitcode 99 "$s_exe" --include-ignored $s_threads ${MATEXP_TEST_ARGS:-} > "$2.log" 2>&1
    else
      limit "$3" "$CS" --tool "$1" $s_api --error-exitcode 99 "$s_exe" --include-ignored $s_threads ${MATEXP_TEST_ARGS:-} > "$2.log" 2>&1
    fi
    echo $? > "$2.rc"
  }
  is_alone() { case "${1##*/}" in $alone) return 0 ;; esac; return 1; }
  for tool in $tools; do
    for exe_file in "$OUT/.sanitize-$tool"/*.exe; do
      [ -f "$exe_file" ] || continue
      is_alone "$(cat "$exe_file")" || continue
      sanitize_part "$tool" "${exe_file%.exe}" "${MATEXP_SANITIZE_ALONE_TIMEOUT:-$timeout}"
    done
  done
  running=0
  for tool in $tools; do
    for exe_file in "$OUT/.sanitize-$tool"/*.exe; do
      [ -f "$exe_file" ] || continue
      is_alone "$(cat "$exe_file")" && continue
      sanitize_part "$tool" "${exe_file%.exe}" "$timeout" &
      running=$((running + 1))
      if [ "$running" -ge "$jobs" ]; then wait; running=0; fi
    done
  done
  wait
  for tool in $tools; do
    slog="$OUT/sanitize-$tool.log"
    parts="$OUT/.sanitize-$tool"
    if [ "$(kernels_of "$tool")" = ours ]; then
      echo "sanitizer setup: $tool; MATEXP_GPU_TEST_SCALE=$MATEXP_GPU_TEST_SCALE; kernels checked: the project's $nours (sanitize-kernels.txt, --kernel-name regex=^(...)\$)" > "$slog"
    else
      echo "sanitizer setup: $tool; MATEXP_GPU_TEST_SCALE=$MATEXP_GPU_TEST_SCALE; kernels checked: all" > "$slog"
    fi
    errors=0; bins=0; bad=""
    for name_file in "$parts"/*.name; do
      [ -f "$name_file" ] || continue
      part=${name_file%.name}
      name=$(cat "$name_file")
      bins=$((bins + 1))
      rc=$(cat "$part.rc" 2>/dev/null || echo 1)
      echo "==== $name: compute-sanitizer --tool $tool ====" >> "$slog"
      cat "$part.log" >> "$slog"
      # memcheck, initcheck and synccheck print "ERROR SUMMARY: N errors"; racecheck prints
      # "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)".
      found=$(sed -n -e 's/.*ERROR SUMMARY: \([0-9][0-9]*\) error.*/\1/p' \
        -e 's/.*RACECHECK SUMMARY: [0-9][0-9]* hazards* displayed (\([0-9][0-9]*\) errors*, \([0-9][0-9]*\) warnings*).*/\1 \2/p' "$part.log")
      n=0
      for c in $found; do n=$((n + c)); done
      # The sanitizer's own failures ("Internal Sanitizer Error: ...") mean its records may be
      # incomplete: each counts as an error (racecheck's summary already counts them; where a
      # summary does not, they are added) and is named in the verdict.
      internal=$(grep -c 'Internal Sanitizer Error' "$part.log" 2>/dev/null)
      internal=${internal:-0}
      [ "$internal" -gt "$n" ] && n=$internal
      errors=$((errors + n))
      if [ "$rc" -ne 0 ] || [ -z "$found" ] || [ "$internal" -gt 0 ]; then
        note=""
        [ -z "$found" ] && note=", no sanitizer summary"
        [ "$internal" -gt 0 ] && note="$note, $internal internal sanitizer errors"
        [ "$rc" -eq 124 ] && note="$note, stopped at the time limit"
        bad="$bad $name (exit $rc, $n errors$note)"
      fi
    done
    rm -rf "$parts"
    if [ "$errors" -eq 0 ] && [ -z "$bad" ] && [ "$bins" -gt 0 ]; then verdict=clean; else verdict=FAILED; status=1; fi
    line="sanitize $tool: $verdict: $errors errors in $bins test binaries${bad:+; failing:$bad}"
    echo "$line" >> "$slog"
    echo "$line" >> "$OUT/sanitize-summary.txt"
    echo "$line"
  done
  exit $status
fi

status=0
summary=""
start=$(date +%s)
for exe in "$HERE"/tests/*; do
  [ -x "$exe" ] || continue
  name=tests/${exe##*/}
  selected "$name" "$@" || continue
  log="$OUT/tests/${exe##*/}.log"
  t0=$(date +%s)
  # cuSPARSE is a third-party library: its tests run in a process of their own, so that a
  # crash there cannot take the other results with it.
  limit "${MATEXP_TEST_TIMEOUT:-900}" "$exe" --include-ignored --show-output --skip cusparse ${MATEXP_TEST_ARGS:-} > "$log" 2>&1
  rc=$?
  echo "==== cuSPARSE tests (separate process) ====" >> "$log"
  limit "${MATEXP_TEST_TIMEOUT:-900}" "$exe" --include-ignored --show-output cusparse ${MATEXP_TEST_ARGS:-} >> "$log" 2>&1
  rc2=$?
  [ "$rc" -ne 0 ] && status=1
  [ "$rc2" -ne 0 ] && status=1
  summary="$summary
$name: exit $rc (cuSPARSE part: exit $rc2) in $(( $(date +%s) - t0 )) s"
done
mid=$(date +%s)
for exe in "$HERE"/bench/*; do
  [ -x "$exe" ] || continue
  name=bench/${exe##*/}
  selected "$name" "$@" || continue
  log="$OUT/bench/${exe##*/}.log"
  t0=$(date +%s)
  limit "${MATEXP_BENCH_TIMEOUT:-1800}" "$exe" --bench ${MATEXP_BENCH_ARGS:-} > "$log" 2>&1
  rc=$?
  [ "$rc" -ne 0 ] && status=1
  summary="$summary
$name: exit $rc in $(( $(date +%s) - t0 )) s"
done
end=$(date +%s)

echo
echo "=== matexp GPU bundle (commit $MATEXP_COMMIT) ==="
cat "$OUT"/bench/*.log "$OUT"/tests/*.log 2>/dev/null | grep -m1 -E '^device: |device: gpu' || echo "device: unknown"
echo "tests in $((mid - start)) s, benchmarks in $((end - mid)) s:$summary"
for log in "$OUT"/tests/*.log; do
  [ -f "$log" ] || continue
  echo "-- ${log##*/}"
  grep -E '^test result' "$log" | sed 's/^/  /'
  grep -E '^test .* (FAILED|ok)$' "$log" | sed 's/^/  /'
  if grep -q 'panicked at' "$log"; then
    echo "  failures:"; grep -A2 'panicked at' "$log" | head -40 | sed 's/^/    /'
  fi
done
echo "records: $(ls "$OUT/records" | tr '\n' ' ')"
for log in "$OUT"/bench/*.log; do
  [ -f "$log" ] || continue
  echo "-- ${log##*/}"
  sed -n '/^summary on/,$p' "$log"
done
exit $status
