#!/usr/bin/env bash
# deb.sh OUT - `make deb`: build the Debian package of this tree with
# dpkg-buildpackage (debian/, debhelper's dh sequence) and check it with
# lintian. The build runs in a copy, OUT/src/ssl-sim-VERSION, of the files
# git knows (tracked, and new ones not ignored) so that the checkout and its
# build/ stay as they are; the .deb, .buildinfo and .changes end up in OUT.
# Exits non-zero when the build fails or lintian reports an error.
set -euo pipefail
out=${1:-build/deb}
cd "$(dirname "$0")/.."
version=$(cat VERSION)
src=$out/src/ssl-sim-$version
rm -rf "$out"
mkdir -p "$src"
if git rev-parse --show-toplevel >/dev/null 2>&1 \
    && [ "$(cd "$(git rev-parse --show-toplevel)" && pwd -P)" = "$(pwd -P)" ]; then
    git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
        [ -e "$f" ] && printf '%s\0' "$f"; done | tar --null -T - -cf - | tar -C "$src" -xf -
    # the copy has no .git: scripts/version.sh reads the commit from here
    git describe --always --dirty > "$src/.git-describe"
else
    tar --exclude='./build*' --exclude=./.git -cf - . | tar -C "$src" -xf -
fi
changelog_version=$(cd "$src" && dpkg-parsechangelog -S Version)
if [ "$changelog_version" != "$version" ]; then
    echo "deb.sh: debian/changelog is at $changelog_version but VERSION says $version:" \
         "add a changelog entry (dch -v $version)" >&2
    exit 1
fi
# a calling make's jobserver does not reach through dpkg-buildpackage;
# --jobs=auto gives the package build its own parallelism
unset MAKEFLAGS MFLAGS MAKELEVEL
(cd "$src" && dpkg-buildpackage -b -us -uc --jobs=auto) > "$out/build.log" 2>&1 || {
    tail -40 "$out/build.log" >&2
    echo "deb.sh: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
    exit 1
}
mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out"/
changes=$(ls "$out"/*.changes)
lintian --fail-on error "$changes" | tee "$out/lintian.txt"
echo "deb.sh: $out/ssl-sim_${version}_$(dpkg --print-architecture).deb (lintian:" \
     "$(grep -c '^E:' "$out/lintian.txt" || true) errors, $(grep -c '^W:' "$out/lintian.txt" || true) warnings)"
