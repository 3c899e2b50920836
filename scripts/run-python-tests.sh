#!/usr/bin/env bash
# run-python-tests.sh BUILD - the Python module's tests (python/tests) with
# the system /usr/bin/python3 (numpy from Debian; the python3 first on PATH
# may be another one without numpy), against BUILD's libsslsim and
# BUILD/bench/embed. Prints one closing line "python tests: ok|FAILED".
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/python3 ]; then
    echo "python tests: /usr/bin/python3 missing (scripts/deps.sh installs it)"; exit 1
fi
if SSLSIM_LIBRARY="$build/lib/libsslsim.so.1" SSLSIM_EMBED_BENCH="$build/bench/embed" \
    /usr/bin/python3 -m unittest discover -s python/tests -t python 2>&1; then
    echo "python tests: ok"
else
    echo "python tests: FAILED"; exit 1
fi
