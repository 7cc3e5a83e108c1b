#!/usr/bin/env bash
# Fuzzes every parser a user can feed, for a while each:
#   tests/fuzz/run.sh [seconds-per-target] [target...]     (default 60 s, every target)
# Configures and builds build-fuzz with the `fuzz` preset (clang++, libFuzzer, ASan + UBSan),
# seeds each target's corpus from the real files of the repository, runs the targets one
# after the other and prints, per target, executions, executions per second, the coverage
# reached (libFuzzer's cov: edges and ft: features) and the corpus size. A crash, leak,
# UB report or hang (> 10 s on one input) stops that target; its input is kept under
# build-fuzz/fuzz/artifacts/ and the script exits 1. Reproduce one with
#   build-fuzz/tests/fuzz/fuzz_<target> build-fuzz/fuzz/artifacts/<target>-crash-<sha>
# The corpus grows across runs in build-fuzz/fuzz/corpus/<target>/ (delete it to start over).
# Environment: BUILD_DIR (default build-fuzz), JOBS (build jobs, default 2), NO_BUILD=1 to use
# an existing build (the CTest tests do).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
build=${BUILD_DIR:-build-fuzz}
all=(units trace model_card platform topo nccl_log calibration scenario)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

if [ "${NO_BUILD:-0}" != 1 ]; then
  if [ ! -f "$build/CMakeCache.txt" ]; then
    if [ "$build" = build-fuzz ]; then
      cmake --preset fuzz >/dev/null
    else
      cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DTPSIM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
        -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" >/dev/null
    fi
  fi
  cmake --build "$build" -j"${JOBS:-2}" --target tpsim_fuzz
fi

work="$build/fuzz"
mkdir -p "$work/artifacts" "$work/logs"

# One file per seed, named after its content's hash (the same seed twice is one file).
add_seed_text() {  # dir text
  local f
  f="$1/$(printf '%s' "$2" | sha1sum | cut -c1-16)"
  printf '%s' "$2" >"$f"
}
seed() {  # target -> fills $work/seeds/<target>
  local t=$1 dir="$work/seeds/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  case $t in
    units)
      # Every quantity the platforms, scenarios and model cards write, plus near misses.
      for v in $(grep -ohE '"[-0-9.][0-9.eE+-]*[A-Za-z/]*"' platforms/*.xml tests/bad_input/*.xml tests/data/*.xml | tr -d '"' | sort -u) \
               $(grep -ohE ':[ ]*[-0-9.][0-9.eE+-]*[A-Za-z/]+[ ]*$' scenarios/*.yaml tests/bad_input/*.yaml tests/data/*.yaml |
                 tr -d ': ' | sort -u); do
        add_seed_text "$dir" "$v"
      done ;;
    trace) cp tests/bad_input/*.csv tests/fuzz/seeds/trace/* "$dir/" ;;
    model_card) cp workloads/models/*.yaml tests/bad_input/broken_model.yaml tests/fuzz/seeds/model_card/* "$dir/" ;;
    platform) cp platforms/*.xml tests/bad_input/*.xml tests/data/*.xml "$dir/" ;;
    topo) cp tests/data/topo/*.txt "$dir/" ;;
    # The held-out logs too: mpirun tags (also inside rows), srun labels, old formats, failed runs.
    nccl_log) cp calibrate/recorded/*.log tests/data/measured/nccl/*.log tests/data/measured/log_formats/* "$dir/" ;;
    calibration) cp tests/fuzz/seeds/calibration/*.yaml "$dir/" ;;
    scenario) cp scenarios/*.yaml tests/bad_input/*.yaml tests/data/*.yaml "$dir/" ;;
  esac
  # Inputs that once crashed a target: each run replays them first.
  if [ -d "tests/fuzz/regressions/$t" ]; then cp "tests/fuzz/regressions/$t"/* "$dir/"; fi
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
status=0
summary=()
for t in "${targets[@]}"; do
  exe="$build/tests/fuzz/fuzz_$t"
  [ -x "$exe" ] || { echo "no fuzz target $exe (targets: ${all[*]})" >&2; exit 2; }
  seed "$t"
  mkdir -p "$work/corpus/$t"
  dict=()
  [ -f "tests/fuzz/dicts/$t.dict" ] && dict=(-dict="tests/fuzz/dicts/$t.dict")
  log="$work/logs/$t.log"
  echo "== fuzz_$t: ${seconds}s from $(ls "$work/seeds/$t" | wc -l) seeds (log: $log)"
  rc=0
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$t-" "${dict[@]}" "$work/corpus/$t" "$work/seeds/$t" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)  # none when a seed fails before the first report
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")
  if [ $rc -ne 0 ]; then
    status=1
    verdict="FINDING (exit $rc): $(ls -t "$work"/artifacts/"$t"-* 2>/dev/null | head -1)"
    grep -m1 -E 'ERROR: |runtime error|tpsim fuzz finding|uncaught|deadly signal' "$log" || true
  else
    verdict=ok
  fi
  summary+=("$(printf '%-12s %10s runs %8s exec/s  cov: %-6s ft: %-6s corpus: %-5s %s' "$t" "${runs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$verdict")")
done
echo
printf '%s\n' "${summary[@]}"
exit $status
