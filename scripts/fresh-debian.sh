#!/usr/bin/env bash
# fresh-debian.sh [DIR] [GOAL...] - the README's path on a Debian machine
# that has never seen this project: debootstrap a minimal bookworm into DIR
# (default build-fresh), install there only what the README asks for (gcc,
# make, git), clone this checkout's HEAD into it and run `make GOAL...`
# (default: test) as root in a chroot; scripts/deps.sh must bring the rest.
# Prints the chroot's output and exits with make's status.
#
# Needs root, debootstrap and Debian's mirror; about 2 GB in DIR and 15-25
# minutes on two cores. A chroot shares this machine's network (the tests
# bind loopback ports of their own, as everywhere) but not its packages.
# Commits only: what is not committed is not cloned. The base system is
# kept in DIR/base.tar, so a second run starts from the same fresh system
# without downloading it again; delete DIR to start over.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# absolute: the cleanup compares it with the kernel's mount table
dir=$(realpath -m -- "${1:-$top/build-fresh}")
[ $# -gt 0 ] && shift
goals=("${@:-test}")
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" -eq 0 ] || { echo "fresh-debian.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-debian.sh: apt-get install debootstrap" >&2; exit 2; }

mkdir -p "$dir"
root=$dir/root
if [ ! -f "$dir/base.tar" ]; then
    rm -rf "$dir/base"
    debootstrap --variant=minbase bookworm "$dir/base" "$mirror" > "$dir/debootstrap.log" 2>&1 \
        || { tail -20 "$dir/debootstrap.log"; exit 1; }
    tar -C "$dir/base" -cf "$dir/base.tar" . && rm -rf "$dir/base"
fi
# whether anything is mounted at or under the chroot
mounts_in_root() { awk -v r="$root" '$5 == r || index($5, r "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; }
cleanup() {
    local p
    # what still runs in there (an interrupted apt-get, a test's simulator)
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null || true
    done
    sleep 0.5
    umount -R "$root" 2>/dev/null || true
    # never remove a tree that still has this machine's /dev or /sys in it;
    # --one-file-system as a second guard
    if mounts_in_root; then
        echo "fresh-debian.sh: $root still has mounts; left in place" >&2
    else
        rm -rf --one-file-system "$root"
    fi
}
mounts_in_root && { echo "fresh-debian.sh: $root has mounts; unmount them first" >&2; exit 2; }
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf --one-file-system "$root" && mkdir -p "$root" && tar -C "$root" -xf "$dir/base.tar"
# / a mount point, as on a machine: `ip netns exec` (the system tests'
# hosts) remounts it, which fails on a plain directory. Private, and every
# mount of this machine's trees below it a slave: nothing done in the
# chroot reaches this machine's /dev or /sys, and nothing is mounted twice
mount --bind "$root" "$root" && mount --make-private "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# a site behind a TLS-inspecting proxy: this machine's local CAs go along
# (ca-certificates, which git brings, adds them to the bundle; node reads it)
extra_ca=()
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    extra_ca=(NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
fi
git clone -q --bare "$top" "$root/srv/ssl-sim.git"

status=0
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
    DEBIAN_FRONTEND=noninteractive "${extra_ca[@]}" /bin/bash -c '
        set -e
        apt-get update -qq
        apt-get install -y -qq gcc make git > /dev/null
        git clone -q /srv/ssl-sim.git /root/ssl-sim
        cd /root/ssl-sim
        echo "fresh-debian.sh: $(git log --oneline -1) on Debian $(cat /etc/debian_version): make $*"
        make "$@"' fresh "${goals[@]}" &
wait $! || status=$? # in the background: a signal ends the wait and cleans up
echo "fresh-debian.sh: make ${goals[*]} exited $status"
exit "$status"
