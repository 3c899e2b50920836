#!/usr/bin/env bash
# deps.sh - install the Debian packages the build needs, only when missing.
# Called by `make`, `make test` and `make run`, so a fresh Debian machine
# needs nothing by hand. Runs apt-get only if pkg-config or a tool is absent.
set -euo pipefail

need=()
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }

command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v protoc-c >/dev/null 2>&1 || need+=(protobuf-c-compiler)
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
command -v clang-format >/dev/null 2>&1 || need+=(clang-format)
# tests/fuzz: clang with Debian's libFuzzer and sanitizer runtimes
command -v clang >/dev/null 2>&1 || need+=(clang)
if command -v clang >/dev/null 2>&1; then
    [ -f "$(clang -print-file-name=libclang_rt.fuzzer-$(uname -m).a 2>/dev/null)" ] \
        || [ -f "$(clang --print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-$(uname -m).a" ] \
        || need+=(libclang-rt-dev)
fi
[ -f /usr/include/google/protobuf/any.proto ] || need+=(libprotobuf-dev)
have_pc libprotobuf-c || need+=(libprotobuf-c-dev)
have_pc libzmq || need+=(libzmq3-dev)
have_pc libczmq || need+=(libczmq-dev)
have_pc inih || need+=(libinih-dev)
have_pc criterion || need+=(libcriterion-dev)
# services/viewer: HTTP + WebSocket server and JSON (docs/design.md)
[ -f /usr/include/civetweb.h ] || need+=(libcivetweb-dev)
have_pc libcjson || need+=(libcjson-dev)
# league log files (.gz)
have_pc zlib || need+=(zlib1g-dev)
# browser test of the viewer page (tests/browser): Debian's Chromium
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# ... driven from node by playwright-core, which npm installs (tests/browser/run.sh)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
# make deb: Debian's own packaging tools
command -v dh >/dev/null 2>&1 || need+=(debhelper)
command -v lintian >/dev/null 2>&1 || need+=(lintian)
command -v dpkg-buildpackage >/dev/null 2>&1 || need+=(dpkg-dev)
# python/sslsim: numpy for the system python3
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
# ../shared/tools/check-wire reads descriptors with python3-protobuf
/usr/bin/python3 -c 'import google.protobuf' >/dev/null 2>&1 || need+=(python3-protobuf)

[ ${#need[@]} -eq 0 ] && exit 0
echo "deps.sh: installing ${need[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing packages and not root; run: sudo apt-get install -y ${need[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
