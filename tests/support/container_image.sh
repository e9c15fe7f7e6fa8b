#!/bin/sh
# Prepare a real container runtime and two small local images for
# tests/transports/test_container_real.py. Idempotent; starts nothing that stays running.
#
#   tests/support/container_image.sh            # podman (the default)
#   CLAUDE_SDK_CONTAINER_RUNTIME=docker tests/support/container_image.sh
#
# docker needs a running daemon that DOCKER_HOST (or the default socket) reaches; this script
# does not start one. Without iptables or a bridge, for example:
#   dockerd --iptables=false --ip6tables=false --bridge=none \
#       --host unix:///tmp/claude-sdk-docker.sock --data-root /var/lib/claude-sdk-docker
#   export DOCKER_HOST=unix:///tmp/claude-sdk-docker.sock
#
# What it does, each step only when needed:
#   1. apt-get installs the runtime (podman and runc: podman with --runtime runc works where
#      its default crun does not; or docker.io), and debootstrap;
#   2. builds a Debian bookworm root filesystem (debootstrap --variant=minbase, with
#      python3 and procps) from deb.debian.org, cached as a tarball in
#      $CLAUDE_SDK_CONTAINER_CACHE (default ~/.cache/claude-sdk-test/container);
#   3. imports it as two images: IMAGE (default claude-sdk-test:bookworm) and
#      IMAGE_NOPY (the same without any python: claude-sdk-test:bookworm-nopython).
# The tests start and remove their own containers (--network none).
set -eu

RUNTIME=${CLAUDE_SDK_CONTAINER_RUNTIME:-podman}
CACHE=${CLAUDE_SDK_CONTAINER_CACHE:-$HOME/.cache/claude-sdk-test/container}
IMAGE=${CLAUDE_SDK_CONTAINER_IMAGE:-claude-sdk-test:bookworm}
IMAGE_NOPY=${CLAUDE_SDK_CONTAINER_IMAGE_NOPY:-$IMAGE-nopython}
SUITE=bookworm
MIRROR=${CLAUDE_SDK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# python3, not python3-minimal: the wrapper needs json, which python3-minimal lacks.
PACKAGES=python3,procps
TARBALL=$CACHE/rootfs-$SUITE-$(printf %s "$PACKAGES" | tr , -).tar

say() { printf 'container_image: %s\n' "$*"; }
now() { date +%s; }
started=$(now)

case $RUNTIME in
    podman) packages="podman runc" quiet=--quiet ;;
    docker) packages="docker.io" quiet= ;;
    *) say "CLAUDE_SDK_CONTAINER_RUNTIME must be podman or docker, not $RUNTIME" >&2; exit 2 ;;
esac

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# 1. the runtime ----------------------------------------------------------------------
missing=""
for package in $packages; do
    program=$package
    [ "$package" = docker.io ] && program=dockerd
    command -v "$program" >/dev/null 2>&1 || missing="$missing $package"
done
[ -f "$TARBALL" ] || command -v debootstrap >/dev/null 2>&1 || missing="$missing debootstrap"
if [ -n "$missing" ]; then
    say "installing:$missing (apt)"
    as_root apt-get update -qq
    # shellcheck disable=SC2086
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $missing >/dev/null
else
    say "$packages already installed"
fi
say "$($RUNTIME --version), $(runc --version | head -n 1)"
if [ "$RUNTIME" = docker ] && ! docker info >/dev/null 2>&1; then
    say "no docker daemon answers (DOCKER_HOST=${DOCKER_HOST:-unset}): start one (see the top)" >&2
    exit 1
fi

# 2. the root filesystem ----------------------------------------------------------------
if [ -f "$TARBALL" ]; then
    say "rootfs cached: $TARBALL ($(du -h "$TARBALL" | cut -f1))"
else
    mkdir -p "$CACHE"
    work=$(mktemp -d "$CACHE/rootfs.XXXXXX")
    trap 'as_root rm -rf "$work"' EXIT
    say "debootstrap --variant=minbase $SUITE from $MIRROR (once; cached)"
    t0=$(now)
    as_root debootstrap --variant=minbase --include=$PACKAGES \
        "$SUITE" "$work/root" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
        tail -n 30 "$work/debootstrap.log" >&2
        exit 1
    }
    # Nothing in it needs the package caches.
    as_root rm -rf "$work/root/var/cache/apt/archives"/*.deb "$work/root/var/lib/apt/lists"/*
    as_root tar -C "$work/root" -cf "$TARBALL.part" .
    mv "$TARBALL.part" "$TARBALL"
    say "rootfs built in $(( $(now) - t0 )) s: $TARBALL ($(du -h "$TARBALL" | cut -f1))"
fi

# 3. the images ----------------------------------------------------------------------------
# An image records the tarball it came from (name and mtime) in a label: a new tarball
# means new images.
stamp="$(basename "$TARBALL")@$(stat -c %Y "$TARBALL")"
fresh() {
    label=$($RUNTIME image inspect --format '{{index .Config.Labels "claude-sdk-rootfs"}}' \
        "$1" 2>/dev/null) || return 1
    [ "$label" = "$stamp" ]
}
if fresh "$IMAGE"; then
    say "image $IMAGE up to date"
else
    $RUNTIME import $quiet --change "LABEL claude-sdk-rootfs=$stamp" "$TARBALL" "$IMAGE" >/dev/null
    say "imported $IMAGE"
fi
if fresh "$IMAGE_NOPY"; then
    say "image $IMAGE_NOPY up to date"
else
    # The same system without any python: the wrapper cannot start there.
    tar --delete --wildcards -f - './usr/bin/python3*' './usr/lib/python3*' <"$TARBALL" |
        $RUNTIME import $quiet --change "LABEL claude-sdk-rootfs=$stamp" - "$IMAGE_NOPY" >/dev/null
    say "imported $IMAGE_NOPY"
fi
# The modules the transport's wrapper imports must be there.
check='import base64, ctypes, errno, json, os, select, signal, sys, time, zlib
print("python", sys.version.split()[0])'
$RUNTIME run --rm --runtime runc --network none --ulimit nofile=1024:1024 \
    --ulimit nproc=1024:1024 "$IMAGE" python3 -I -S -c "$check" |
    sed 's/^/container_image: in the image: /'
say "done in $(( $(now) - started )) s (runtime=$RUNTIME image=$IMAGE no-python image=$IMAGE_NOPY)"
