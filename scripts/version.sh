#!/bin/sh
# version.sh - print build/gen/version.h: VERSION, and in a git checkout of
# this tree the commit from `git describe --always --dirty`, so a binary
# says which source it was built from. A copy made by `make deb` carries
# that description in .git-describe; a release tarball has neither and
# gives VERSION alone.
cd "$(dirname "$0")/.." || exit 1
version=$(cat VERSION 2>/dev/null || echo 0.0.0)
commit=
# only this tree's own repository: a tarball unpacked inside some other
# checkout must not take that one's commit
top=$(git rev-parse --show-toplevel 2>/dev/null)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ]; then
    commit=$(git describe --always --dirty 2>/dev/null)
elif [ -r .git-describe ]; then
    commit=$(cat .git-describe)
fi
full=$version
[ -n "$commit" ] && full="$version (git $commit)"
printf '/* version.h - written by scripts/version.sh; do not edit */\n'
printf '#define SSL_SIM_VERSION_FULL "%s"\n' "$full"
