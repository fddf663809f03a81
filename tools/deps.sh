#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages pvmap needs. Idempotent: when everything is
# present it only runs one dpkg-query (well under a second). Not root: prints
# the exact apt command and fails.
set -euo pipefail

packages=(
	# guest kernels and the module: 6.1 and 6.12 LTS sources; dkms for the package
	linux-source-6.1 linux-source-6.12 dkms bc flex bison libelf-dev libssl-dev cpio kmod dwarves
	gcc make xz-utils rsync
	# guest user space (-m32 -static); qemu-i386-static runs i386 programs
	# (the 32-bit unit test, check-full's i386 Debian root) on hosts whose
	# kernel cannot execute them
	gcc-multilib qemu-user-static
	# QEMU for the guests, python3 for the runner and QMP
	qemu-system-x86 python3
	# run-guest --vgpu: trixie's QEMU (tools/host/vgpu-qemu.sh) renders with
	# bookworm's Mesa (software GL, egl-headless); its virglrenderer needs
	# bookworm's libva and libvulkan
	libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1 libva2 libva-drm2 libvulkan1
	# static checks, the hypervisor stub and its fuzzer
	sparse libxen-dev clang libclang-rt-14-dev valgrind
	# make bench's plot
	gnuplot-nox
	# make check-full: docs/install.md's DKMS install steps in a Debian root, and
	# make vm's images; debootstrap checks the archive's signature with gpgv
	# against Debian's keyring (only Recommends: not installed by themselves)
	debootstrap debian-archive-keyring gpgv
	# a loaded host for the verdicts that must hold on one: nice -n 19 stress-ng
	# --cpu 2 beside make check (docs/testing.md)
	stress-ng
	# pvmap-drmfps, the guests' libdrm client (static: -dev ships libdrm.a),
	# for gcc and gcc -m32; Multi-Arch: same, so both install side by side
	libdrm-dev libdrm-dev:i386
	# libdrm-dev:i386's libpciaccess0:i386 needs it. Named, so that apt pairs
	# it with the host's zlib1g even when the mirror's i386 security list is
	# missing (apt's resolver gives up on the unnamed dependency then).
	zlib1g:i386
)

# Debian's own i386 kernels are fetched (not installed) by guest-kernel.sh:
# apt must know the i386 architecture's packages.
need_i386=0
dpkg --print-foreign-architectures | grep -qx i386 || need_i386=1

# One dpkg-query for all: it prints nothing for a package it has never seen,
# so compare against the list of installed names rather than its output.
# ${binary:Package} names a foreign-architecture package as the list does
# (libdrm-dev:i386), ${Package} a native one.
installed=$(dpkg-query -W -f='${db:Status-Status} ${Package} ${binary:Package}\n' "${packages[@]}" 2>/dev/null |
	awk '$1 == "installed" { print $2; print $3 }' || true)
missing=()
for pkg in "${packages[@]}"; do
	grep -qx "$pkg" <<<"$installed" || missing+=("$pkg")
done

[ ${#missing[@]} -eq 0 ] && [ "$need_i386" -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages or the i386 architecture; run as root:" >&2
	[ "$need_i386" -eq 0 ] || echo "  dpkg --add-architecture i386" >&2
	echo "  apt-get update && $cmd" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ "$need_i386" -ne 0 ]; then
	echo "deps.sh: adding the i386 architecture (for Debian's 686 kernels)"
	dpkg --add-architecture i386
fi
# A mirror caught mid-sync fails one index (seen: bookworm-security's i386
# Packages.xz of the wrong size) and apt-get update exits 100, though every
# other list is fresh. Go on: the install below fails by itself if what it
# needs is not there.
apt-get update -qq || echo "deps.sh: apt-get update reported errors (above); trying the install anyway" >&2
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps.sh: installing ${missing[*]}"
$cmd
