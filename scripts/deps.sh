#!/usr/bin/env bash
# deps.sh [run|build|test] [--list] - install the Debian packages a set of
# make targets needs, only those missing, so a fresh Debian machine needs
# nothing by hand. The sets grow one from the other:
#   run    build and run the simulator, libsslsim and the Python module
#          (`make run`): compiler, protobuf-c, zmq, czmq, inih, civetweb,
#          cJSON, zlib, numpy for /usr/bin/python3;
#   build  run + what `make`, `make check`, `make bench`, `make asan` and
#          `make format` compile and call: Criterion (the test binaries are
#          part of `make`) and clang-format (the default);
#   test   build + everything `make test` runs: clang with libFuzzer,
#          protoc (fuzz corpora), chromium, node and npm (the browser test),
#          build-essential, debhelper, dpkg-dev and lintian (`make deb`),
#          iproute2 (the system tests' network namespaces), python3-protobuf
#          (the wire check), python3-distributed and python3-cryptography
#          (sslsim.dask's tests, TLS included).
# The Makefile's `deps` target picks the set from the goals asked for.
# --list prints the set's packages, one a line, and installs nothing.
# Runs apt-get only when something is missing; needs root for that.
set -euo pipefail

set_name=build
list=0
for arg in "$@"; do
    case "$arg" in
        run | build | test) set_name=$arg ;;
        --list) list=1 ;;
        *) echo "usage: scripts/deps.sh [run|build|test] [--list]" >&2; exit 2 ;;
    esac
done

need=()
want=()
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }
# pkg CHECK...: want Debian package pkg; need it when the check fails
pkg() {
    local name=$1; shift
    want+=("$name")
    "$@" >/dev/null 2>&1 || need+=("$name")
}
has() { command -v "$1"; }
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }
py() { /usr/bin/python3 -c "import $1"; }

# ---- run ------------------------------------------------------------------
pkg pkg-config has pkg-config
pkg gcc has cc
pkg make has make
pkg protobuf-c-compiler has protoc-c
pkg libprotobuf-dev test -f /usr/include/google/protobuf/any.proto
pkg libprotobuf-c-dev have_pc libprotobuf-c
pkg libzmq3-dev have_pc libzmq
pkg libczmq-dev have_pc libczmq
pkg libinih-dev have_pc inih
# services/viewer: HTTP + WebSocket server and JSON (docs/design.md)
pkg libcivetweb-dev test -f /usr/include/civetweb.h
pkg libcjson-dev have_pc libcjson
# league log files (.gz)
pkg zlib1g-dev have_pc zlib
# python/sslsim: numpy for the system python3 (pulls python3 in)
pkg python3-numpy py numpy

# ---- build ----------------------------------------------------------------
if [ "$set_name" != run ]; then
    pkg libcriterion-dev have_pc criterion
    pkg clang-format has clang-format
fi

# ---- test -----------------------------------------------------------------
fuzz_runtime() {
    [ -f "$(clang -print-file-name=libclang_rt.fuzzer-"$(uname -m)".a 2>/dev/null)" ] ||
        [ -f "$(clang --print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-$(uname -m).a" ]
}
if [ "$set_name" = test ]; then
    # tests/fuzz: clang with Debian's libFuzzer and sanitizer runtimes
    pkg clang has clang
    if command -v clang >/dev/null 2>&1; then pkg libclang-rt-dev fuzz_runtime; else want+=(libclang-rt-dev); fi
    pkg protobuf-compiler has protoc
    # browser test of the viewer page (tests/browser): Debian's Chromium,
    # driven from node by playwright-core, which npm installs (tests/browser/run.sh)
    pkg chromium has chromium
    pkg nodejs has node
    pkg npm has npm
    # make deb: Debian's own packaging tools; dpkg-buildpackage refuses to
    # build without build-essential, which a minimal Debian lacks
    pkg build-essential installed build-essential
    pkg debhelper has dh
    pkg lintian has lintian
    pkg dpkg-dev has dpkg-buildpackage
    # the system tests that make hosts of their own (tests/support/sim_lab.c:
    # ip netns, veth); without ip they skip
    pkg iproute2 has ip
    # ../shared/tools/check-wire reads descriptors with python3-protobuf
    pkg python3-protobuf py google.protobuf
    # sslsim.dask and its tests (python/tests/test_dask.py): Dask's
    # scheduler and workers; optional for users, so not in `run`
    pkg python3-distributed py distributed
    # its TLS test makes throwaway certificates (LocalCluster(security=True))
    pkg python3-cryptography py cryptography
fi

if [ "$list" -eq 1 ]; then
    printf '%s\n' "${want[@]}"
    exit 0
fi
[ ${#need[@]} -eq 0 ] && exit 0
echo "deps.sh ($set_name): installing ${need[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing packages and not root; run: sudo apt-get install -y ${need[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
