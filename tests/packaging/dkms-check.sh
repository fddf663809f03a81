#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-check.sh [--out DIR] KERNEL_HEADERS_DIR...: build the package that
# `make deb` wrote with DKMS against each kernel headers (or build) directory,
# as `apt-get install ./pvmap-dkms_<version>_all.deb` does in a guest running
# that kernel. Nothing is installed: the package is unpacked with dpkg-deb -x
# and dkms's trees are in a temporary directory, removed on exit. Each
# pvmap.ko must have the kernel's ELF class and release (vermagic). --out DIR
# copies the modules built for each kernel to DIR/<kernel release>/. Before
# that, for each kernel, dkms must skip a copy of its headers whose .config
# lacks any one of the symbols guest/*/Kconfig depend on or select
# (dkms_build_exclusive_<release>: dkms.conf's BUILD_EXCLUSIVE_CONFIG).
# Prints KTAP.
set -euo pipefail

usage="usage: dkms-check.sh [--out DIR] KERNEL_HEADERS_DIR..."
out=
if [ "${1:-}" = --out ]; then
	out=${2:?$usage}
	shift 2
fi
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }

top=$(cd "$(dirname "$0")/../.." && pwd)
debs=("$top"/build/deb/pvmap-dkms_*_all.deb)
[ -f "${debs[0]}" ] || { echo "dkms-check.sh: no build/deb/pvmap-dkms_*_all.deb: run make deb" >&2; exit 2; }
ver=$(dpkg-deb -f "${debs[0]}" Version)

work=$(mktemp -d /tmp/pvmap-dkms.XXXXXX)
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "${debs[0]}" "$work/root"
mkdir "$work/dkms" "$work/modules" "$work/tmp"

# dkms signs what it builds when it finds a sign-file (a host with
# linux-kbuild installed), generating its key in /var/lib/dkms first: give
# it a private, empty /var/lib/dkms in a mount namespace of its own.
dkms_tmp() {
	TMPDIR=$work/tmp unshare --mount --map-root-user \
		sh -c 'mount -t tmpfs tmpfs /var/lib/dkms && exec "$@"' sh \
		dkms --dkmstree "$work/dkms" --sourcetree "$work/root/usr/src" \
		--installtree "$work/modules" "$@"
}

# The release the headers' modules must carry (their vermagic). Debian's
# include/config/kernel.release holds the upstream version instead.
kernel_release() {
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$1/include/generated/utsrelease.h" 2>/dev/null || true
}

# What the Kconfigs of the package's modules (guest/*/Kconfig) depend on and
# select, but X86 (BUILD_EXCLUSIVE_ARCH's) and pvmap's own symbols.
kconfig_deps() {
	sed -n 's/^[[:space:]]*\(depends on\|select\)[[:space:]]//p' \
		"$top/guest/pvmap/Kconfig" "$top/guest/pvmap_drm/Kconfig" |
		grep -o '[A-Z][A-Z0-9_]*' | grep -v -x -e X86 -e 'PVMAP.*' | sort -u
}

# dkms build against a copy of headers $1 (links, but for .config) whose
# .config lacks CONFIG_$4, release $2, arch $3: dkms's exit status, 77 when
# dkms.conf's BUILD_EXCLUSIVE_CONFIG rules the kernel out. Whatever it
# built goes again, so that the real build below finds nothing there.
build_without() {
	local shadow=$work/without-$4 e status=0
	rm -rf "$shadow"
	mkdir "$shadow"
	for e in "$1"/* "$1"/.[!.]*; do
		[ -e "$e" ] && [ "${e##*/}" != .config ] && ln -s "$e" "$shadow/"
	done
	sed "s/^CONFIG_$4=.*/# CONFIG_$4 is not set/" "$1/.config" >"$shadow/.config"
	dkms_tmp build -m pvmap -v "$ver" -k "$2" -a "$3" --kernelsourcedir "$shadow" \
		>"$work/without.log" 2>&1 || status=$?
	rm -rf "$shadow" "$work/dkms/pvmap/$ver/$2" "$work/dkms/pvmap/kernel-$2-$3"
	echo "$status"
}

# dkms files a build under -a, by default uname -m: i686 in a guest running
# a Debian 686 kernel, x86_64 on this host. It is a label only, never passed
# to make: the headers' .config (and .kernelvariables' ARCH=x86) decide
# what is built, so -a just files i386 builds where the guest would.
kernel_arch() {
	if grep -sqx 'CONFIG_X86_32=y' "$1/.config"; then echo i686; else echo x86_64; fi
}

echo "KTAP version 1"
echo "# Subtest: dkms"
echo "1..$((2 * $#))"
dkms_tmp add -m pvmap -v "$ver" >"$work/add.log" 2>&1 || true
n=0 pass=0 fail=0
for arg in "$@"; do
	hdr=$(cd "$arg" 2>/dev/null && pwd) || hdr=$arg
	kver=$(kernel_release "$hdr")
	arch=$(kernel_arch "$hdr")

	# A kernel without one of the Kconfigs' dependencies: dkms must skip it
	# (BUILD_EXCLUSIVE_CONFIG), not build there and fail or load.
	n=$((n + 1))
	ok=1 diag=()
	if [ -z "$kver" ] || [ ! -L "$work/dkms/pvmap/$ver/source" ]; then
		ok=0 diag=("no headers or no dkms add: see dkms_build_${kver:-$(basename "$arg")}")
	else
		for sym in $(kconfig_deps); do
			status=$(build_without "$hdr" "$kver" "$arch" "$sym")
			if [ "$status" = 77 ]; then
				diag+=("without CONFIG_$sym: dkms skips the kernel (BUILD_EXCLUSIVE_CONFIG)")
			else
				ok=0
				why="dkms build exited $status, not 77: BUILD_EXCLUSIVE_CONFIG lacks it"
				diag+=("without CONFIG_$sym: $why")
			fi
		done
	fi
	for d in "${diag[@]}"; do echo "# $d"; done
	if [ "$ok" -eq 1 ]; then
		echo "ok $n dkms_build_exclusive_${kver:-unknown}"; pass=$((pass + 1))
	else
		echo "not ok $n dkms_build_exclusive_${kver:-unknown}"; fail=$((fail + 1))
	fi

	n=$((n + 1))
	ok=0 diag=()
	if [ -z "$kver" ]; then
		diag=("$arg: no include/generated/utsrelease.h: not a kernel headers directory")
		kver=$(basename "$arg")
	elif [ ! -L "$work/dkms/pvmap/$ver/source" ]; then
		mapfile -t diag < <(echo "dkms add failed:"; tail -n 10 "$work/add.log")
	elif ! dkms_tmp build -m pvmap -v "$ver" -k "$kver" -a "$arch" \
		--kernelsourcedir "$hdr" >"$work/build.log" 2>&1; then
		log=$work/dkms/pvmap/$ver/build/make.log
		[ -f "$log" ] || log=$work/build.log
		mapfile -t diag < <(echo "dkms build failed ($arch), the end of $(basename "$log"):"
			tail -n 20 "$log")
	else
		# A 32-bit kernel loads ELF32 modules only; the release must match.
		want=32
		grep -qx 'CONFIG_64BIT=y' "$hdr/.config" && want=64
		base=$work/dkms/pvmap/$ver/$kver/$arch
		ko=$base/module/pvmap.ko
		case $(od -An -tx1 -j4 -N1 "$ko" | tr -d ' ') in
		01) class=32 ;;
		02) class=64 ;;
		*) class=unknown ;;
		esac
		magic=$(modinfo -F vermagic "$ko") || true
		ok=1
		[ "$class" = "$want" ] || { ok=0; diag+=("pvmap.ko is ELF$class, the kernel takes ELF$want"); }
		[ "${magic%% *}" = "$kver" ] || { ok=0; diag+=("pvmap.ko: vermagic '$magic', not $kver"); }
		if [ -n "$out" ]; then
			mkdir -p "$out/$kver"
			cp "$base"/module/*.ko* "$out/$kver/"
		fi
	fi
	for d in "${diag[@]}"; do echo "# $d"; done
	if [ "$ok" -eq 1 ]; then
		echo "ok $n dkms_build_$kver"; pass=$((pass + 1))
	else
		echo "not ok $n dkms_build_$kver"; fail=$((fail + 1))
	fi
done
echo "# Totals: pass:$pass fail:$fail skip:0 total:$n"
[ "$fail" -eq 0 ]
