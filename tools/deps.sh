#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages pvmap needs. Idempotent: when everything is
# present it only runs one dpkg-query (well under a second). Not root: prints
# the exact apt command and fails.
set -euo pipefail

packages=(
	# guest kernels and the module
	linux-source-6.1 bc flex bison libelf-dev libssl-dev cpio kmod dwarves
	gcc make xz-utils rsync
	# guest user space (-m32 -static)
	gcc-multilib
	# QEMU for the guests, python3 for the runner and QMP
	qemu-system-x86 python3
	# static checks, the hypervisor stub and its fuzzer
	sparse libxen-dev clang libclang-rt-14-dev valgrind
	# make bench's plot
	gnuplot-nox
)

# One dpkg-query for all: it prints nothing for a package it has never seen,
# so compare against the list of installed names rather than its output.
installed=$(dpkg-query -W -f='${db:Status-Status} ${Package}\n' "${packages[@]}" 2>/dev/null |
	awk '$1 == "installed" { print $2 }' || true)
missing=()
for pkg in "${packages[@]}"; do
	grep -qx "$pkg" <<<"$installed" || missing+=("$pkg")
done

[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages; run as root:" >&2
	echo "  apt-get update && $cmd" >&2
	exit 1
fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd
