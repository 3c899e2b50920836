#!/usr/bin/env bash
# bench.sh BUILD - run every benchmark binary in BUILD/bench/ in turn (each
# writes its own bench/results/NAME.txt), the end-to-end pipeline last,
# then print a summary: every result file's run, without its notes.
# Called by `make bench`.
# Benchmarks are timing runs: run them on an otherwise idle machine; the
# pipeline records the load average it started under.
#
# bench.sh BUILD NAME... runs those programs alone; BENCH_RESULTS=DIR
# writes the results files there instead (test_bench_args does both).
set -uo pipefail
build=$(realpath -m "${1:-build}")
[ $# -gt 0 ] && shift
results=$(realpath -m "${BENCH_RESULTS:-bench/results}")
cd "$(dirname "$0")/.."
mkdir -p "$results"
failed=()
bins=$(find "$build/bench" -maxdepth 1 -type f -perm -u+x 2>/dev/null | sort)
if [ $# -gt 0 ]; then
    for name in "$@"; do
        [ -x "$build/bench/$name" ] || { echo "bench: no program $name in $build/bench" >&2; exit 1; }
    done
    bins=$(for name in "$@"; do echo "$build/bench/$name"; done)
fi
if [ -z "$bins" ]; then
    echo "bench: no benchmark binaries in $build/bench (run make first)" >&2
    exit 1
fi
# the pipeline starts whole simulators: keep it apart from the micro-benchmarks
ordered=$(printf '%s\n' $bins | grep -v '/pipeline$'; printf '%s\n' $bins | grep '/pipeline$')
for b in $ordered; do
    name=$(basename "$b")
    # the programs that measure an input record one first (bench/bench_input.h):
    # a journal of about half an hour of sim time, a log of more than 30 minutes
    case $name in
        replay_seek) input=(--record 3) ;;
        player_open) input=(--record 10) ;;
        *) input=() ;;
    esac
    echo "== $name"
    start=$(date +%s)
    if ! "$b" "${input[@]}" "$results/$name.txt"; then
        echo "bench: $name failed" >&2
        failed+=("$name")
    fi
    echo "== $name done in $(( $(date +%s) - start )) s"
done
echo
echo "================ summary ================"
# each file's run, not the notes kept under its first "## " heading
# (bench/bench_results.h)
for f in "$results"/*.txt; do
    [ -f "$f" ] || continue
    echo "---- $f"
    sed '/^## /,$d' "$f"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "bench: failed: ${failed[*]}"
    exit 1
fi
