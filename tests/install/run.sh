#!/usr/bin/env bash
# run.sh BUILD - the installed ssl-sim, as a user gets it (`make test` runs
# this after the Criterion suites):
#   1. `make install DESTDIR=T` puts the program, man page, completion,
#      /etc/ssl-sim, /etc/default/ssl-sim and units where they belong, and
#      `make uninstall DESTDIR=T` leaves nothing but empty directories;
#   2. the man page renders without warnings and lists every flag --help
#      lists; the bash completion completes sub-commands, flags and values;
#   3. without git, --version falls back to VERSION alone;
#   4. scripts/deps.sh installs what the package build needs; `make deb`
#      builds the Debian package (lintian: no errors), and the
#      program unpacked from it with dpkg -x into a scratch root prints the
#      version with the commit and the same presets as the build tree's.
# Prints one line per check and exits non-zero at the first failure.
set -uo pipefail
build=${1:-build}
cd "$(dirname "$0")/../.."
bin=$build/bin/ssl-sim
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fails=0
ok() { printf 'install: ok   %s\n' "$1"; }
bad() { printf 'install: FAIL %s\n' "$1"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
mk() { make --no-print-directory BUILD="$build" "$@"; }

# the flags --help lists, one per line
"$bin" --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p' | sort -u > "$scratch/flags"
[ -s "$scratch/flags" ] || bad "--help lists flags"

# ---- 1. make install / make uninstall ------------------------------------
root=$scratch/root
mk install DESTDIR="$root" > "$scratch/install.log" 2>&1 || { cat "$scratch/install.log"; bad "make install"; }
for f in usr/local/bin/ssl-sim usr/local/share/man/man1/ssl-sim.1 \
         usr/local/share/bash-completion/completions/ssl-sim etc/ssl-sim/ssl-sim.ini \
         etc/ssl-sim/two-hosts.ini etc/ssl-sim/three-hosts.ini etc/ssl-sim/realism/noisy-venue.ini \
         etc/default/ssl-sim usr/local/lib/systemd/system/ssl-sim-physics.service \
         usr/local/lib/systemd/system/ssl-sim.target; do
    [ -f "$root/$f" ] || bad "make install put /$f"
done
# one unit per service the program knows (its own list, so a new service
# without a unit fails here)
services=$("$bin" service nosuch 2>&1 | sed -n 's/.*(\(.*\))$/\1/p' | tr -d ',')
check "the program names five services: $services" test "$(echo $services | wc -w)" -eq 5
for s in $services; do
    check "make install put the unit of $s" \
        grep -q "^ExecStart=/usr/local/bin/ssl-sim service $s \\\$SSL_SIM_OPTS" \
        "$root/usr/local/lib/systemd/system/ssl-sim-$s.service"
done
check "installed program runs: $("$root/usr/local/bin/ssl-sim" --version)" \
    test "$("$root/usr/local/bin/ssl-sim" --version)" = "$("$bin" --version)"
check "units start /usr/local/bin/ssl-sim and read /etc/default/ssl-sim" \
    sh -c "grep -q '^ExecStart=/usr/local/bin/ssl-sim service physics \\\$SSL_SIM_OPTS' '$root/usr/local/lib/systemd/system/ssl-sim-physics.service' \
        && grep -q '^EnvironmentFile=-/etc/default/ssl-sim' '$root/usr/local/lib/systemd/system/ssl-sim-physics.service'"
check "/etc/default/ssl-sim names a configuration that loads" \
    sh -c ". '$root/etc/default/ssl-sim' && set -- \$SSL_SIM_OPTS && [ \"\$2\" = /etc/ssl-sim/ssl-sim.ini ] \
        && '$bin' presets --config '$root/etc/ssl-sim/ssl-sim.ini' >/dev/null"
# libsslsim's headers: sslsim.h includes sslsim_task.h, so a program that
# names only <sslsim.h> (or only <sslsim_task.h>) sees the whole API
for h in sslsim.h sslsim_task.h; do
    printf '#include <%s>\nint main (void) { sslsim_batch_env_t s = { 0 }; (void) s; return sslsim_task_name (0) == 0; }\n' \
        "$h" > "$scratch/api.c"
    check "a program with only #include <$h> compiles against the installed headers" \
        cc -std=c11 -Wall -Wpedantic -Werror -fsyntax-only -I"$root/usr/local/include" "$scratch/api.c"
done
# the static link docs/embedding.md shows, against the installed archive:
# it holds machine code alone (the Makefile drops GCC's LTO sections, which
# another GCC's linker would refuse), and the program steps a world
cat > "$scratch/mine.c" <<'EOF_C'
#include <sslsim.h>
#include <stdio.h>
int
main (void)
{
    sslsim_config_t config;
    sslsim_config_init (&config);
    char err[256];
    sslsim_world_t *w = sslsim_world_new (&config, err, sizeof err);
    if (!w || sslsim_world_step (w, 0.1) != SSLSIM_OK)
        return 1;
    printf ("%d\n", sslsim_world_vision_count (w));
    sslsim_world_free (w);
    return 0;
}
EOF_C
lib=$root/usr/local/lib
check "the installed libsslsim.a holds no LTO code" \
    sh -c "! objdump -h '$lib/libsslsim.a' | grep -q '\.gnu\.lto_'"
check "a program links the installed libsslsim.a statically and steps a world" \
    sh -c "cc -o '$scratch/mine' '$scratch/mine.c' -I'$root/usr/local/include' -Wl,-Bstatic -L'$lib' -lsslsim \
            -Wl,-Bdynamic \$(pkg-config --libs --static libprotobuf-c inih) -lm -lpthread \
        && [ \"\$('$scratch/mine')\" -gt 0 ]"
# `sudo make install` itself, then docs/embedding.md's shared link: the
# program must start, so the dynamic linker must know the new library.
# Root only, in a private mount namespace where /usr/local is empty and /etc
# an overlay whose writes land in the scratch directory: the machine's own
# /usr/local, /etc and linker cache are never touched.
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null \
    && grep -qw overlay /proc/filesystems; then
    mkdir -p "$scratch/etc-up" "$scratch/etc-work"
    unshare -m --propagation private bash -c '
        set -e
        mount -t tmpfs tmpfs /usr/local
        mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/etc-up,workdir=$1/etc-work" /etc
        make --no-print-directory BUILD="$2" install > "$1/sysinstall.log" 2>&1
        cc -o "$1/mine-shared" "$1/mine.c" $(pkg-config --cflags --libs sslsim)
        "$1/mine-shared"' _ "$scratch" "$build" > "$scratch/shared.out" 2>&1
    check "sudo make install: a program linked with pkg-config --libs sslsim starts$(grep -h 'error\|ldconfig' "$scratch/shared.out" "$scratch/sysinstall.log" | head -2 | sed 's/^/ (/; s/$/)/' | tr '\n' ' ')" \
        sh -c "[ \"\$(tail -1 '$scratch/shared.out')\" -gt 0 ] 2>/dev/null"
else
    printf 'install: skip %s\n' "sudo make install + shared link (needs root, unshare -m and overlayfs)"
fi
mk uninstall DESTDIR="$root" > "$scratch/uninstall.log" 2>&1 || { cat "$scratch/uninstall.log"; bad "make uninstall"; }
left=$(find "$root" ! -type d)
check "make uninstall leaves only empty directories${left:+ (left: $left)}" test -z "$left"
check "make uninstall removes /etc/ssl-sim itself" test ! -e "$root/etc/ssl-sim"
mk install DESTDIR="$scratch/usr-root" PREFIX=/usr > /dev/null 2>&1
check "PREFIX=/usr: units start /usr/bin/ssl-sim" \
    grep -q '^ExecStart=/usr/bin/ssl-sim ' "$scratch/usr-root/usr/lib/systemd/system/ssl-sim-vision.service"
mk install-files > /dev/null 2>&1   # back to the default PREFIX's units

# ---- 2. man page and completion -------------------------------------------
man=$build/share/man/man1/ssl-sim.1
LC_ALL=C.UTF-8 MANWIDTH=100 man -l "$man" 2> "$scratch/man.err" | sed 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g' \
    > "$scratch/man.txt"
check "man -l renders ssl-sim.1 without warnings" sh -c "[ -s '$scratch/man.txt' ] && [ ! -s '$scratch/man.err' ]"
LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$man" 2> "$scratch/groff.err"
check "the man page counts the services the program has" \
    sh -c "tr -s ' \n' ' ' < '$scratch/man.txt' | grep -q 'It is five services'"
check "groff -ww finds nothing to warn about$(head -3 "$scratch/groff.err" | tr '\n' ' ')" test ! -s "$scratch/groff.err"
missing=$(while read -r f; do grep -q -- "^ *$f\\b" "$scratch/man.txt" || echo "$f"; done < "$scratch/flags")
check "the man page lists every flag --help lists${missing:+ (missing: $missing)}" test -z "$missing"
check "the man page has NAME, SYNOPSIS, OPTIONS, FILES" \
    sh -c "for s in NAME SYNOPSIS OPTIONS FILES; do grep -q \"^\$s\$\" '$scratch/man.txt' || exit 1; done"

# complete "ssl-sim WORDS..." in a bash that sourced the script
complete_words() {
    bash -c '. "$1"; shift; COMP_WORDS=(ssl-sim "$@"); COMP_CWORD=$#; _ssl_sim; [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$build/share/bash-completion/ssl-sim" "$@" | sort | tr '\n' ' '
}
check "completion: sub-commands" test "$(complete_words res)" = "restart "
check "completion: sub-commands that share a prefix" test "$(complete_words sta)" = "stats status "
check "completion: service names" test "$(complete_words service "")" = "gateway legacy-grsim physics viewer vision "
check "completion: values of --mode" test "$(complete_words run --mode "")" = "fast real-time real_time realtime sync "
check "completion: --single-process for run" test "$(complete_words run --sin)" = "--single-process "
check "completion: --single-process not for presets" test -z "$(complete_words presets --sin)"
all=$(complete_words run --)
missing=$(while read -r f; do case " $all" in *" $f "*) ;; *) echo "$f" ;; esac; done < "$scratch/flags")
check "completion offers every flag --help lists${missing:+ (missing: $missing)}" test -z "$missing"

# ---- 3. a tree without git: VERSION alone ---------------------------------
mkdir -p "$scratch/tarball/scripts"
cp VERSION "$scratch/tarball/" && cp scripts/version.sh "$scratch/tarball/scripts/"
check "without git, the version is VERSION alone" \
    grep -qx "#define SSL_SIM_VERSION_FULL \"$(cat VERSION)\"" <(cd "$scratch" && tarball/scripts/version.sh)

# ---- 4. the Debian package --------------------------------------------------
# scripts/deps.sh installs what `make test` needs on a fresh Debian: one
# package of each Build-Depends of debian/control (debhelper-compat comes
# with debhelper), and build-essential, without which dpkg-buildpackage
# refuses to start.
test_set=" $(scripts/deps.sh test --list | tr '\n' ' ') "
clauses=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' debian/control | sed '$d; s/^Build-Depends://' | tr ',' '\n' \
    | sed 's/([^)]*)//g; s/[[:space:]]//g; s/^debhelper-compat$/debhelper/' | grep -v '^$')
missing=$(for c in $clauses build-essential; do
    hit=; for p in ${c//|/ }; do case "$test_set" in *" $p "*) hit=1 ;; esac; done
    [ -n "$hit" ] || echo "$c"; done)
check "scripts/deps.sh test installs the Build-Depends and build-essential${missing:+ (missing: $missing)}" \
    test -n "$clauses" -a -z "$missing"
if ! command -v dpkg-buildpackage >/dev/null 2>&1 || ! command -v dh >/dev/null 2>&1; then
    bad "dpkg-buildpackage and debhelper are installed (scripts/deps.sh)"
else
    start=$(date +%s)
    if DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" mk deb > "$scratch/deb.log" 2>&1; then
        ok "make deb ($(($(date +%s) - start)) s; $(tail -1 "$scratch/deb.log" | sed 's/^deb.sh: //'))"
        deb=$(ls "$build"/deb/ssl-sim_*.deb)
        pkgroot=$scratch/pkg
        dpkg -x "$deb" "$pkgroot"
        got=$("$pkgroot/usr/bin/ssl-sim" --version 2>&1)
        want="ssl-sim $(cat VERSION) (git $(git describe --always --dirty 2>/dev/null))"
        if git rev-parse --git-dir >/dev/null 2>&1; then
            check "dpkg -x: ssl-sim --version says '$got'" test "$got" = "$want"
        else
            check "dpkg -x: ssl-sim --version says '$got'" test "$got" = "ssl-sim $(cat VERSION)"
        fi
        "$pkgroot/usr/bin/ssl-sim" presets > "$scratch/presets.pkg" 2>&1
        "$bin" presets > "$scratch/presets.build"
        check "dpkg -x: ssl-sim presets prints the build tree's configuration" \
            sh -c "[ -s '$scratch/presets.pkg' ] && cmp -s '$scratch/presets.pkg' '$scratch/presets.build'"
        check "dpkg -x: presets --config /etc/ssl-sim/ssl-sim.ini of the package" \
            sh -c "'$pkgroot/usr/bin/ssl-sim' presets --config '$pkgroot/etc/ssl-sim/ssl-sim.ini' | cmp -s - '$scratch/presets.build'"
        check "the package's man page renders" \
            sh -c "MANWIDTH=100 man -l '$pkgroot/usr/share/man/man1/ssl-sim.1.gz' 2>&1 | grep -q -- '--port-offset'"
        check "the package's units start /usr/bin/ssl-sim" \
            grep -q '^ExecStart=/usr/bin/ssl-sim service gateway' "$pkgroot/lib/systemd/system/ssl-sim-gateway.service"
        for s in $services; do
            check "the package has the unit of $s" test -f "$pkgroot/lib/systemd/system/ssl-sim-$s.service"
        done
        conffiles=$(dpkg-deb -I "$deb" conffiles | sort | tr '\n' ' ')
        check "conffiles: $conffiles" test "$conffiles" = "/etc/default/ssl-sim /etc/ssl-sim/realism/noisy-venue.ini /etc/ssl-sim/ssl-sim.ini /etc/ssl-sim/three-hosts.ini /etc/ssl-sim/two-hosts.ini "
        depends=$(dpkg-deb -f "$deb" Depends)
        check "Depends: $depends" sh -c "for p in libczmq4 libzmq5 libprotobuf-c1 libinih1; do echo '$depends' | grep -q \"\$p\" || exit 1; done"
        # the library and the Python module come in their own packages
        for p in libsslsim1 libsslsim-dev python3-sslsim; do
            dpkg -x "$(ls "$build"/deb/${p}_*.deb)" "$pkgroot"
        done
        multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
        check "libsslsim-dev: sslsim.h, sslsim_task.h, sslsim.pc and libsslsim.so -> libsslsim.so.1" sh -c \
            "[ -f '$pkgroot/usr/include/sslsim.h' ] && [ -f '$pkgroot/usr/include/sslsim_task.h' ] \
             && [ -f '$pkgroot/usr/lib/$multiarch/pkgconfig/sslsim.pc' ] \
             && [ \"\$(readlink '$pkgroot/usr/lib/$multiarch/libsslsim.so')\" = libsslsim.so.1 ]"
        check "python3-sslsim imports with the packaged library and steps a world" \
            env SSLSIM_LIBRARY="$pkgroot/usr/lib/$multiarch/libsslsim.so.1" \
                PYTHONPATH="$pkgroot/usr/lib/python3/dist-packages" /usr/bin/python3 -c \
                'import sslsim; w = sslsim.World(); w.step(0.016); w.close()'
    else
        tail -30 "$scratch/deb.log"
        bad "make deb"
    fi
fi

echo "install: $fails failed"
[ "$fails" -eq 0 ]
