#!/bin/sh
# Installs what the end-to-end suite (test/e2e) needs on a Debian host: debootstrap builds the
# containers' root filesystem, systemd-container provides systemd-nspawn, shellcheck checks
# init/nodeherd-init.sh. Idempotent: installs only what is missing; does nothing when not root or
# without apt (the suite then skips with a message).
set -eu

[ "$(id -u)" = 0 ] || { echo "setup-host: not root, nothing installed (the e2e suite will skip)" >&2; exit 0; }
command -v apt-get >/dev/null 2>&1 || { echo "setup-host: no apt-get, nothing installed" >&2; exit 0; }

missing=
command -v debootstrap >/dev/null 2>&1 || missing="$missing debootstrap"
command -v systemd-nspawn >/dev/null 2>&1 || missing="$missing systemd-container"
command -v shellcheck >/dev/null 2>&1 || missing="$missing shellcheck"
command -v nsenter >/dev/null 2>&1 || missing="$missing util-linux"
[ -n "$missing" ] || exit 0

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # one word per package
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "setup-host: installed$missing" >&2
