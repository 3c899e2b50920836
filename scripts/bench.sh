#!/usr/bin/env bash
# bench.sh BUILD - run every benchmark binary in BUILD/bench/ in turn (each
# writes its own bench/results/NAME.txt), the end-to-end pipeline last,
# then print a summary: every result file's run, without its notes.
# Called by `make bench`.
# Benchmarks are timing runs: run them on an otherwise idle machine; the
# pipeline records the load average it started under.
set -uo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
mkdir -p bench/results
failed=()
bins=$(find "$build/bench" -maxdepth 1 -type f -perm -u+x 2>/dev/null | sort)
if [ -z "$bins" ]; then
    echo "bench: no benchmark binaries in $build/bench (run make first)" >&2
    exit 1
fi
# the pipeline starts whole simulators: keep it apart from the micro-benchmarks
ordered=$(printf '%s\n' $bins | grep -v '/pipeline$'; printf '%s\n' $bins | grep '/pipeline$')
for b in $ordered; do
    name=$(basename "$b")
    echo "== $name"
    start=$(date +%s)
    if ! "$b" "bench/results/$name.txt"; then
        echo "bench: $name failed" >&2
        failed+=("$name")
    fi
    echo "== $name done in $(( $(date +%s) - start )) s"
done
echo
echo "================ summary ================"
# each file's run, not the notes kept under its first "## " heading
# (bench/bench_results.h)
for f in bench/results/*.txt; do
    [ -f "$f" ] || continue
    echo "---- $f"
    sed '/^## /,$d' "$f"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "bench: failed: ${failed[*]}"
    exit 1
fi
