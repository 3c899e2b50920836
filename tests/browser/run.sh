#!/usr/bin/env bash
# run.sh BUILD - the browser tests of the viewer page (viewer.test.js, and
# player.test.js: `ssl-sim play` with its timeline; replay.test.js: `ssl-sim
# replay` with the same timeline):
# installs playwright-core from the committed package-lock.json when
# node_modules lacks it (npm only; the browser is Debian's /usr/bin/chromium,
# never a download), then runs the test against BUILD/bin/ssl-sim. Prints
# "browser: N passed, N failed" last and exits non-zero on failure.
set -uo pipefail
build=$(cd "${1:-build}" && pwd) || { echo "browser: no build directory ${1:-build}"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
want=$(sed -n 's/.*"playwright-core": *"\([^"]*\)".*/\1/p' package.json | head -1)
# scripts/deps.sh installs Debian's nodejs, 18 on bookworm: the pinned
# playwright-core must run there (1.62 and later need node 20, and a fresh
# Debian failed every browser test with them)
debian_node=18
needs=$(sed -n '/"node_modules\/playwright-core"/,/^    }/s/.*"node": *">=\([0-9]*\).*/\1/p' package-lock.json | head -1)
if [ -z "$needs" ] || [ "$needs" -gt "$debian_node" ]; then
    echo "browser: playwright-core $want needs node >=${needs:-?}; Debian's nodejs is $debian_node (package-lock.json)"
    echo "browser: 0 passed, 1 failed"
    exit 1
fi
have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' node_modules/playwright-core/package.json 2>/dev/null | head -1)
if [ "$have" != "$want" ]; then
    echo "browser: installing playwright-core $want (npm ci)"
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error \
        || { echo "browser: npm ci failed"; echo "browser: 0 passed, 1 failed"; exit 1; }
fi
passed=0 failed=0 rc=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
for t in viewer.test.js player.test.js replay.test.js; do
    node "$t" "$build" | tee "$out" || rc=1 # pipefail: node's status
    last=$(tail -1 "$out")
    p=$(sed -n 's/^browser: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' <<<"$last")
    f=$(sed -n 's/^browser: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' <<<"$last")
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-1}))
done
echo "browser: $passed passed, $failed failed"
exit $rc
