#!/usr/bin/env bash
# run-tests.sh BUILD [KIND...] - run every Criterion test binary under
# BUILD/tests and print one closing line "tests: N passed, N failed, N
# skipped", after the skipped tests, each with the reason it gave (a
# missing tool, no root for network namespaces, ...): a skip does not fail
# the run, and it is never silent. Unit
# tests first, then service tests, then system tests (real processes, real
# UDP on loopback); KIND names a subset (`make check`: unit service).
# Each binary's line gives its wall time: where the suite's time goes.
#
# System binaries run SIM_SYSTEM_BINARIES (default 2) at a time: they
# spend most of their time waiting on a real-time simulator (the machine
# is idle ~80 % of it), and every one picks free loopback ports, its own
# runtime directory and network namespaces of its own, as their tests do
# under Criterion's --jobs 2. SIM_SYSTEM_BINARIES=1 runs them one by one;
# SIM_SYSTEM_JOBS (default 2) is Criterion's --jobs for a system binary, so
# SIM_SYSTEM_BINARIES=2 SIM_SYSTEM_JOBS=1 (`make asan`) keeps at most two
# simulators running, as one binary with two jobs does, without a binary's
# last long test leaving the other slot empty.
# Unit and service binaries run SIM_UNIT_BINARIES (default 2) at a time:
# none of them times anything (speed lives in bench/), and a small
# binary's start and Criterion's forks overlap another's work; the gain is
# small (ASan's unit binaries 1:49 -> 1:37 in CI), as Criterion's two jobs
# already keep both cores busy in the larger ones.
set -uo pipefail
build=${1:-build}
shift
kinds=${*:-unit service system}
pass=0; fail=0; skip=0; failed_bins=(); skipped=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_one N BINARY: its output, exit code and tenths of a second in tmp/N.*
# (Criterion's --jobs: $jobs)
run_one () {
    local t0
    t0=$(date +%s%N)
    "$2" --jobs "$jobs" --tap="$tmp/$1.tap" > "$tmp/$1.out" 2>&1
    echo $? > "$tmp/$1.rc"
    echo $(( ($(date +%s%N) - t0) / 100000000 )) > "$tmp/$1.time"
}

# report N BINARY: its line, its counts added, its output when it failed,
# its skipped tests noted (Criterion's TAP report: "ok - NAME  # SKIP why")
report () {
    local t=$2 out rc secs line p f c s
    out=$(cat "$tmp/$1.out"); rc=$(cat "$tmp/$1.rc"); secs=$(cat "$tmp/$1.time")
    line=$(printf '%s\n' "$out" | grep -a 'Synthesis:' | tail -1 | sed 's/ *$//')
    p=$(printf '%s' "$line" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
    f=$(printf '%s' "$line" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
    c=$(printf '%s' "$line" | sed -n 's/.*Crashing: \([0-9]*\).*/\1/p')
    p=${p:-0}; f=${f:-0}; c=${c:-0}
    s=0
    while IFS= read -r l; do
        skipped+=("$(basename "$t"): ${l#ok - }")
        s=$((s + 1))
    done < <(grep -a '^ok - .*  # SKIP' "$tmp/$1.tap" 2>/dev/null | sed 's/  # SKIP /: /')
    if [ -z "$line" ] || [ "$rc" -ne 0 ]; then
        printf '%s\n' "$out" | tail -40
        [ "$f" -eq 0 ] && [ "$c" -eq 0 ] && f=1
        failed_bins+=("$t")
    fi
    printf '%-40s %6s s  %s%s\n' "$(basename "$t")" "$((secs / 10)).$((secs % 10))" \
        "${line:-no synthesis (exit $rc)}" "$([ "$s" -gt 0 ] && echo " | Skipped: $s")"
    pass=$((pass + p)); fail=$((fail + f + c)); skip=$((skip + s))
}

for kind in $kinds; do
    bins=($(find "$build/tests/$kind" -maxdepth 1 -type f -name 'test_*' -perm -u+x 2>/dev/null | sort))
    if [ "$kind" = system ]; then
        par=${SIM_SYSTEM_BINARIES:-2}; jobs=${SIM_SYSTEM_JOBS:-2}
    else
        par=${SIM_UNIT_BINARIES:-2}; jobs=2
    fi
    if [ "$par" -le 1 ]; then
        for i in "${!bins[@]}"; do
            run_one "$i" "${bins[$i]}"
            report "$i" "${bins[$i]}"
        done
        continue
    fi
    # par at a time; the lines in name order once all are done
    running=0
    for i in "${!bins[@]}"; do
        if [ "$running" -ge "$par" ]; then
            wait -n
            running=$((running - 1))
        fi
        run_one "$i" "${bins[$i]}" &
        running=$((running + 1))
    done
    wait
    for i in "${!bins[@]}"; do
        report "$i" "${bins[$i]}"
    done
done
[ ${#failed_bins[@]} -gt 0 ] && echo "failing binaries: ${failed_bins[*]}"
[ "$skip" -gt 0 ] && printf 'skipped: %s\n' "${skipped[@]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
