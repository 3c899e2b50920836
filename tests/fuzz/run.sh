#!/usr/bin/env bash
# run.sh check|fuzz BUILD SECONDS - run every libFuzzer harness under
# BUILD/fuzz (tests/fuzz/README.md).
#   check  each harness over its committed corpus (tests/fuzz/corpus/NAME),
#          then SECONDS of fuzzing from it; `make test` runs this
#   fuzz   SECONDS of fuzzing each, the new inputs kept in
#          BUILD/fuzz-out/NAME/corpus for a later -merge=1 into the corpus
# Two harnesses run at a time. The committed corpus is only read; what a
# run finds goes to BUILD/fuzz-out/NAME/ (crash-*, leak-*, timeout-*). One
# line per harness; exit 1 on any crash, sanitizer report or leak.
set -uo pipefail
mode=${1:?check or fuzz}; build=${2:-build-fuzz}; seconds=${3:-15}
here=$(cd "$(dirname "$0")" && pwd)
jobs=${FUZZ_JOBS:-2}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
unset SSL_SIM_LOG

bins=$(find "$build/fuzz" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x 2>/dev/null | sort)
[ -n "$bins" ] || { echo "fuzz: no harnesses under $build/fuzz (make fuzz-build)"; exit 1; }

# one harness: corpus replay (check), then fuzzing; writes out/result
s_one() {
    local bin=$1 name out corpus rc=0
    name=$(basename "$bin")
    out="$build/fuzz-out/$name"; corpus="$here/corpus/${name#fuzz_}"
    rm -rf "$out"; mkdir -p "$out/corpus"
    local common=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix="$out/"
                  -print_final_stats=1)
    if [ "$mode" = check ]; then
        "$bin" "${common[@]}" -runs=0 "$corpus" >"$out/replay.log" 2>&1 || rc=$?
        if [ $rc -ne 0 ]; then
            echo "$name: FAILED on its corpus (exit $rc), see $out/replay.log" >"$out/result"
            return
        fi
    fi
    "$bin" "${common[@]}" -max_total_time="$seconds" "$out/corpus" "$corpus" >"$out/fuzz.log" 2>&1 || rc=$?
    local execs cov
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz.log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$out/fuzz.log" | tail -1)
    if [ $rc -ne 0 ]; then
        echo "$name: FAILED (exit $rc) after ${execs:-?} inputs: $(ls "$out" | grep -E '^(crash|leak|timeout|oom)-' | head -1)" \
             "- see $out/fuzz.log" >"$out/result"
    else
        echo "$name: ok, ${execs:-?} inputs in ${seconds}s, ${cov:-cov ?}, $(ls "$corpus" 2>/dev/null | wc -l) seeds" >"$out/result"
    fi
}

running=0
for bin in $bins; do
    s_one "$bin" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

failed=0
for bin in $bins; do
    name=$(basename "$bin"); out="$build/fuzz-out/$name"
    line=$(cat "$out/result" 2>/dev/null || echo "$name: FAILED (no result)")
    printf '%s\n' "$line"
    case $line in
    *FAILED*)
        failed=$((failed + 1))
        tail -30 "$out/fuzz.log" 2>/dev/null || tail -30 "$out/replay.log" ;;
    esac
done
echo "fuzz: $(echo "$bins" | wc -w) harnesses, $failed failed"
[ "$failed" -eq 0 ]
