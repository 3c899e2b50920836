#!/usr/bin/env bash
# run-tests.sh BUILD [KIND...] - run every Criterion test binary under
# BUILD/tests and print one closing line "tests: N passed, N failed". Unit
# tests first, then service tests, then system tests (real processes, real
# UDP on loopback); KIND names a subset (`make check`: unit service).
set -uo pipefail
build=${1:-build}
shift
kinds=${*:-unit service system}
pass=0; fail=0; failed_bins=()
for kind in $kinds; do
    for t in $(find "$build/tests/$kind" -maxdepth 1 -type f -name 'test_*' -perm -u+x 2>/dev/null | sort); do
        out=$("$t" --jobs 2 2>&1); rc=$?
        line=$(printf '%s\n' "$out" | grep -a 'Synthesis:' | tail -1)
        p=$(printf '%s' "$line" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
        f=$(printf '%s' "$line" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
        c=$(printf '%s' "$line" | sed -n 's/.*Crashing: \([0-9]*\).*/\1/p')
        p=${p:-0}; f=${f:-0}; c=${c:-0}
        if [ -z "$line" ] || [ $rc -ne 0 ]; then
            printf '%s\n' "$out" | tail -40
            [ "$f" -eq 0 ] && [ "$c" -eq 0 ] && f=1
            failed_bins+=("$t")
        fi
        printf '%-48s %s\n' "$(basename "$t")" "${line:-no synthesis (exit $rc)}"
        pass=$((pass + p)); fail=$((fail + f + c))
    done
done
[ ${#failed_bins[@]} -gt 0 ] && echo "failing binaries: ${failed_bins[*]}"
echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
