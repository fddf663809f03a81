#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-kernel.sh KERNEL: build, fetch or find in the cache the guest kernel
# named KERNEL, then print its build directory on the last line. That
# directory is what `make -C DIR M=...` builds pvmap against, and its
# pvmap-image is the image QEMU boots.
#
# Kernels (tests/matrix.list names the guests that boot them):
#   i386 x86_64             the project's debug kernels, Debian's linux-source-6.1
#   x86_64-fixed            x86_64 with docs/upstream/'s patches (make check-full):
#                           DEBUG_KMAP_LOCAL_FORCE_MAP gives x86_64 KMAP_LOCAL
#                           without HIGHMEM, which patch 1 changes too
#   i386-nohighmem          6.1, NOHIGHMEM and no PAE: 2-level paging
#   i386-nohighmem-6.12-prod  6.12, NOHIGHMEM, without the debug options,
#                           upstream as released (make bench, check-full, demo)
#   i386-nohighmem-6.12-fixed the same with docs/upstream/'s patches applied,
#                           release suffix -pvmap-upstream (make check, bench, demo)
#   i386-nohighmem-pae-6.12-prod, i386-nohighmem-pae-6.12-fixed
#                           the same pair with PAE (3-level paging): what an old
#                           686-pae config becomes since 6.15 (make check-full;
#                           make check). These, i386, i386-6.12, x86_64 and the
#                           -above4g ones have KUnit and docs/upstream/'s KUnit
#                           test, fixed or not
#   i386-nohighmem-pae-6.12-above4g, i386-above4g
#                           i386-nohighmem-pae-6.12-prod and the i386 debug
#                           kernel (6.1) with virtio-gpu built in and
#                           docs/upstream/virtio-gpu-above-4g/ applied (its
#                           stable/ PAGE_MASK backport first): virtio-gpu
#                           windows above 4 GiB (make check-full)
#   i386-6.12 x86_64-6.12   the same debug fragments on Debian's linux-source-6.12
#   deb-686-pae deb-686 deb-amd64
#                           Debian bookworm's own current linux-image and
#                           linux-headers, fetched with apt-get download and
#                           unpacked into the cache (never installed on the host)
# `guest-kernel.sh --list` prints the names; `guest-kernel.sh --source 6.1`
# (or 6.12) unpacks that source if needed and prints its directory.
# `guest-kernel.sh --plan KERNEL` says what getting it would take (make demo
# announces a build with it); a build prints a progress line every minute.
# `guest-kernel.sh --xen` fetches bookworm's current xen-hypervisor-4.17-amd64
# and prints the path of its hypervisor as a multiboot ELF, which QEMU's
# -kernel boots (run-guest --xen: the guest kernel is Xen's PV dom0).
#
# Cache layout under ${PVMAP_CACHE:-$HOME/.cache/pvmap}:
#   linux-<debian version>/          an unpacked source (scripts/checkpatch.pl)
#   linux-<debian version>+upstream-<key>/
#                                    the same with docs/upstream/ applied:
#                                    hard links but for the files it patches
#   kernel/<name>-<key>/             O= build tree: bzImage, Module.symvers
#   debian/<name>-<package version>/ the unpacked Debian packages, less the
#                                    image's modules but DRM's (pvmap-drm/) and
#                                    virtio-gpu's (pvmap-vgpu/)
#   xen/<package version>/           xen-hypervisor-4.17-amd64 unpacked (root/)
#                                    and its gunzipped xen-4.17-amd64 ELF
# <key> hashes the fragments, the source version and RECIPE, so editing a
# fragment builds a new tree and leaves the old one for `make clean-cache`.
set -euo pipefail

# Bump when the build steps below change what a cached kernel contains.
RECIPE=2
DEBIAN_RECIPE=4
# tools/host/kernels.list names them (the Makefile and guests.py read it too)
kernels_made() {
	awk -F' *[|] *' -v how="$1" '!/^#/ && NF > 1 && $3 == how { printf "%s ", $1 }' \
		"$(dirname "$0")/kernels.list"
}
BUILT_KERNELS=$(kernels_made built)
DEBIAN_KERNELS=$(kernels_made debian)

name=${1:?usage: guest-kernel.sh KERNEL | --list | --plan KERNEL | --source 6.1|6.12 | --xen}
if [ "$name" = --list ]; then
	echo $BUILT_KERNELS $DEBIAN_KERNELS
	exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
cache=${PVMAP_CACHE:-$HOME/.cache/pvmap}
mkdir -p "$cache/kernel" "$cache/debian"
# Builds and fetches take this lock; a kernel already in the cache does not.
# Waiting for another's build says so, once a minute.
lock() {
	local waited=0
	exec 9>"$cache/.lock"
	flock -n 9 && return 0
	until flock -w 60 9; do
		waited=$((waited + 1))
		echo "guest-kernel.sh: $name waits for another build or fetch in $cache" \
			"($waited min so far)" >&2
	done
}

# --- Debian's own kernels -------------------------------------------------
# debian_kernel_dir: $out, $kver, $abi, $arch and $pkgver of Debian's kernel $name
debian_kernel_dir() {
	local flavour=${name#deb-} meta
	case "$flavour" in
	686-pae | 686) arch=i386 ;;
	amd64) arch=amd64 ;;
	esac
	meta=linux-image-$flavour:$arch
	# The ABI (6.1.0-NN) is what the metapackage depends on today.
	abi=$(apt-cache depends "$meta" 2>/dev/null |
		sed -n "s/^ *Depends: linux-image-\(.*\)-$flavour\(:$arch\)\{0,1\}\$/\1/p" | head -n 1)
	if [ -z "$abi" ]; then
		echo "guest-kernel.sh: apt knows no $meta; run tools/deps.sh" \
			"(it adds the i386 architecture and updates the lists)" >&2
		exit 1
	fi
	kver=$abi-$flavour
	pkgver=$(apt-cache show "linux-image-$kver:$arch" | sed -n 's/^Version: //p' | head -n 1)
	out=$cache/debian/$name-$pkgver
}

debian_kernel() {
	local flavour=${name#deb-}
	debian_kernel_dir
	[ -f "$out/.pvmap-built-$DEBIAN_RECIPE" ] || lock
	if [ ! -f "$out/.pvmap-built-$DEBIAN_RECIPE" ]; then
		echo "guest-kernel.sh: fetching Debian's $kver ($pkgver)" >&2
		rm -rf "$out"
		mkdir -p "$out/deb" "$out/root"
		dl() { (cd "$out/deb" && apt-get download "$@" >>"$out/fetch.log" 2>&1) ||
			{ tail -n 5 "$out/fetch.log" >&2; exit 1; }; }
		# linux-kbuild-6.1 is the host's (amd64): Multi-Arch foreign, it
		# serves the i386 headers too.
		dl "linux-image-$kver:$arch" "linux-headers-$kver:$arch" \
			"linux-headers-$abi-common" "linux-kbuild-${abi%.*-*}"
		for deb in "$out"/deb/*.deb; do
			dpkg-deb -x "$deb" "$out/root"
		done
		# The guests load no module of the image but DRM's, for pvmap_drm:
		# keep those, in load order (pvmap-drm-modules), drop the rest.
		local mods=$out/root/lib/modules/$kver/kernel/drivers/gpu/drm
		mkdir -p "$out/root/pvmap-drm"
		cp "$mods/drm.ko" "$out/root/pvmap-drm/1-drm.ko"
		cp "$mods/drm_kms_helper.ko" "$out/root/pvmap-drm/2-drm_kms_helper.ko"
		# and virtio-gpu's, in load order after DRM's (run-guest --vgpu;
		# amd64's virtio needs virtio_ring, 686's does not)
		local kmod=$out/root/lib/modules/$kver/kernel i=0 m
		mkdir -p "$out/root/pvmap-vgpu"
		for m in drivers/virtio/virtio_ring drivers/virtio/virtio \
			drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci_modern_dev \
			drivers/virtio/virtio_pci drivers/virtio/virtio_dma_buf \
			drivers/gpu/drm/drm_shmem_helper drivers/gpu/drm/virtio/virtio-gpu; do
			i=$((i + 1))
			cp "$kmod/$m.ko" "$out/root/pvmap-vgpu/$i-${m##*/}.ko"
		done
		rm -rf "$out/deb" "$out/root/lib/modules/$kver/kernel"
		# The headers include the common tree by absolute path: point it
		# at the unpacked copy.
		sed -i "s|^include /usr/src/|include $out/root/usr/src/|" \
			"$out/root/usr/src/linux-headers-$kver/Makefile"
		ln -sfn "$out/root/boot/vmlinuz-$kver" "$out/root/usr/src/linux-headers-$kver/pvmap-image"
		ln -sfn "$out/root/pvmap-drm" "$out/root/usr/src/linux-headers-$kver/pvmap-drm-modules"
		ln -sfn "$out/root/pvmap-vgpu" "$out/root/usr/src/linux-headers-$kver/pvmap-vgpu-modules"
		touch "$out/.pvmap-built-$DEBIAN_RECIPE"
	fi
	echo "$out/root/usr/src/linux-headers-$kver"
}

# --- Xen, for the PV dom0 guests ------------------------------------------
XEN_PACKAGE=xen-hypervisor-4.17-amd64
xen_hypervisor() {
	local pkgver out elf
	# The version apt-get download fetches: the candidate, security updates included.
	pkgver=$(apt-cache policy "$XEN_PACKAGE" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	if [ -z "$pkgver" ] || [ "$pkgver" = "(none)" ]; then
		echo "guest-kernel.sh: apt knows no $XEN_PACKAGE; run tools/deps.sh" >&2
		exit 1
	fi
	out=$cache/xen/$pkgver
	elf=$out/xen-4.17-amd64
	[ -f "$out/.pvmap-fetched" ] || lock
	if [ ! -f "$out/.pvmap-fetched" ]; then
		echo "guest-kernel.sh: fetching $XEN_PACKAGE ($pkgver)" >&2
		rm -rf "$out"
		mkdir -p "$out/deb" "$out/root"
		(cd "$out/deb" && apt-get download "$XEN_PACKAGE=$pkgver" >>"$out/fetch.log" 2>&1) ||
			{ tail -n 5 "$out/fetch.log" >&2; exit 1; }
		dpkg-deb -x "$out"/deb/*.deb "$out/root"
		# QEMU's -kernel loads a multiboot ELF, not the gzipped one GRUB takes.
		gunzip -c "$out/root/boot/xen-4.17-amd64.gz" >"$elf"
		rm -rf "$out/deb"
		touch "$out/.pvmap-fetched"
	fi
	echo "$elf"
}

# --- kernels the project builds -------------------------------------------
# source_dir linux-source-X.Y: where that source is (or will be) unpacked, in $src.
source_dir() {
	local tarball=/usr/src/$1.tar.xz
	[ -f "$tarball" ] || { echo "guest-kernel.sh: $tarball missing: run tools/deps.sh" >&2; exit 1; }
	src=$cache/linux-$(dpkg-query -W -f='${Version}' "$1")
}

# unpack_source linux-source-X.Y: source_dir, unpacked if it is not yet.
unpack_source() {
	local tarball=/usr/src/$1.tar.xz
	source_dir "$1"
	if [ ! -f "$src/.pvmap-unpacked" ]; then
		echo "guest-kernel.sh: unpacking $tarball into $src" >&2
		rm -rf "$src"
		mkdir -p "$src"
		tar -xJf "$tarball" -C "$src" --strip-components=1
		touch "$src/.pvmap-unpacked"
	fi
}

# The patches of docs/upstream/6.12/ (docs/upstream/'s series as it applies
# to Debian's 6.12 and 6.1 sources) a kernel named $name carries, in order:
# all of them for the -fixed kernels; only the KUnit test's for the other
# kernels with its suite, which run it against the kernel as released (it
# must pass with HIGHMEM, fail without: i386 NOHIGHMEM, and x86_64's debug
# kernel, where DEBUG_KMAP_LOCAL_FORCE_MAP gives it KMAP_LOCAL without HIGHMEM);
# none for the rest. Their diffs key the source.
upstream_patches() {
	local all above4g=$here/../../docs/upstream/virtio-gpu-above-4g
	all=$(ls "$here"/../../docs/upstream/6.12/[0-9][0-9][0-9][0-9]-*.patch)
	case "$name" in
	*-fixed) echo "$all" ;;
	i386 | x86_64 | i386-6.12 | i386-nohighmem*-6.12-* | *-above4g)
		# shellcheck disable=SC2086 # one path per word
		grep -l '^+++ b/mm/tests/kmap_local_kunit\.c' $all ;;
	esac
	# The -above4g kernels: the virtio-gpu series for 32-bit windows above
	# 4 GiB, after the stable backport it needs (x86's PAGE_MASK)
	case "$name" in
	*-above4g)
		printf '%s\n' "$above4g"/stable/[0-9][0-9][0-9][0-9]-*.patch
		printf '%s\n' "$above4g"/[0-9][0-9][0-9][0-9]-*.patch | grep -v /0000-
		;;
	esac
}

# has_kunit_test: whether upstream_patches carry docs/upstream/'s KUnit test
has_kunit_test() {
	local p
	for p in $(upstream_patches); do
		grep -q '^+++ b/mm/tests/kmap_local_kunit\.c' "$p" && return 0
	done
	return 1
}

upstream_key() {
	local p
	for p in $(upstream_patches); do
		sed -n '/^diff --git /,/^-- $/p' "$p"
	done | sha256sum | cut -c1-12
}

# patched_source: $src with upstream_patches applied, in a copy of hard
# links whose patched files are copies of their own; $src names it.
patched_source() {
	local dst=$src+upstream-$(upstream_key) p f
	[ -n "$(upstream_patches)" ] || return 0
	if [ ! -f "$dst/.pvmap-patched" ]; then
		echo "guest-kernel.sh: applying docs/upstream/ to a copy of $src" >&2
		rm -rf "$dst"
		cp -al "$src" "$dst"
		for p in $(upstream_patches); do
			for f in $(sed -n 's|^+++ b/||p' "$p"); do
				# a file the patch adds is not in $src; one an earlier
				# patch changed is already a copy of its own
				if [ -e "$src/$f" ] && [ "$(stat -c %h "$dst/$f")" -gt 1 ]; then
					cp --remove-destination "$src/$f" "$dst/$f"
				fi
			done
			patch -d "$dst" -p1 --forward --quiet <"$p" ||
				{ echo "guest-kernel.sh: $p does not apply to $src" >&2; exit 1; }
		done
		touch "$dst/.pvmap-patched"
	fi
	src=$dst
}

# built_kernel_dir: $arch, $srcname, $frags, $src and $out of the kernel $name,
# its source not unpacked (--plan asks without building).
built_kernel_dir() {
	local srcver key
	case "$name" in
	i386* | x86_64*) arch=${name%%-*} ;;
	esac
	case "$name" in
	*-6.12 | *-6.12-*) srcname=linux-source-6.12 ;;
	*) srcname=linux-source-6.1 ;;
	esac
	frags=("$here/kconfig/common.config")
	case "$name" in
	i386-nohighmem-pae*) frags+=("$here/kconfig/i386-nohighmem-pae.config") ;;
	i386-nohighmem*) frags+=("$here/kconfig/i386-nohighmem.config") ;;
	*) frags+=("$here/kconfig/$arch.config") ;;
	esac
	case "$name" in
	*-6.12-prod | *-6.12-fixed | *-6.12-above4g) frags+=("$here/kconfig/production.config") ;;
	esac
	case "$name" in
	*-fixed) frags+=("$here/kconfig/upstream-fixes.config") ;;
	esac
	# The guests of pvmap_drm boot these (make check: i386; check-full: the rest).
	case "$name" in
	i386 | x86_64 | i386-above4g) frags+=("$here/kconfig/drm.config") ;;
	i386-6.12 | x86_64-6.12) frags+=("$here/kconfig/drm.config" "$here/kconfig/drm-6.12.config") ;;
	esac
	# virtio-gpu's blobs under mainline's io_mapping without HIGHMEM (run-guest
	# --vgpu), and with PAE the windows above 4 GiB (docs/virtio-gpu.md's table)
	case "$name" in
	i386-nohighmem-6.12-prod | i386-nohighmem-6.12-fixed | i386-nohighmem-pae-6.12-prod | \
		*-above4g)
		frags+=("$here/kconfig/vgpu.config") ;;
	esac
	# KUnit, for the project's debug kernels' guest/pvmap_test/pvmap_kunit.ko and for
	# docs/upstream/'s kmap_local test: every kernel upstream_patches gives
	# that test to
	has_kunit_test &&
		frags+=("$here/kconfig/kunit.config" "$here/kconfig/kmap-local-kunit.config")
	[ "$srcname" = linux-source-6.12 ] && frags+=("$here/kconfig/6.12.config")

	source_dir "$srcname"
	srcver=${src##*/linux-}
	key=$(cat "${frags[@]}" <(echo "$srcver $name recipe $RECIPE") | sha256sum | cut -c1-12)
	[ -n "$(upstream_patches)" ] && key=$(echo "$key $(upstream_key)" | sha256sum | cut -c1-12)
	out=$cache/kernel/$name-$key
}

# last_build, kmake_progress: this machine's build times, a line a minute
# shellcheck source=tools/host/kbuild-progress.sh
. "$here/kbuild-progress.sh"
BUILD_TIMES=$cache/kernel/build-times

built_kernel() {
	local start est
	built_kernel_dir
	if [ -f "$out/.pvmap-built" ]; then
		echo "$out"
		return
	fi
	lock
	if [ -f "$out/.pvmap-built" ]; then	# built while this waited
		echo "$out"
		return
	fi
	unpack_source "$srcname"
	patched_source

	start=$SECONDS
	est=$(last_build)
	if [ -n "$est" ]; then
		est="about $(minutes "${est%% *}") minutes: this machine's last build of ${est##* } took that"
	else
		est="no earlier build here to estimate from; 10-20 minutes on 2 cores"
	fi
	echo "guest-kernel.sh: building the $name kernel in $out ($est)" >&2
	progress_last=$SECONDS	# the first progress line a minute after this one
	rm -rf "$out"
	mkdir -p "$out"
	kmake() { make -C "$src" O="$out" ARCH="$arch" -j"$(nproc)" "$@" >>"$out/build.log" 2>&1; }
	if ! {
		kmake tinyconfig &&
			"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >>"$out/build.log" 2>&1 &&
			kmake olddefconfig
	}; then
		tail -n 30 "$out/build.log" >&2
		exit 1
	fi

	# Kconfig drops what it cannot satisfy without a word: insist on every
	# line, the last fragment's where several name an option.
	local bad=0 line want opt
	declare -A wanted=()
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*} ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			;;
		*) continue ;;
		esac
		wanted[$opt]=$line
	done < <(cat "${frags[@]}")
	for opt in "${!wanted[@]}"; do
		want=${wanted[$opt]}
		if [[ "$want" == "# "* ]]; then
			grep -q "^$opt=" "$out/.config" && { echo "guest-kernel.sh: $opt still set" >&2; bad=1; }
		else
			grep -qx "$want" "$out/.config" || { echo "guest-kernel.sh: wanted $want, got: $(grep "^$opt=" "$out/.config" || echo unset)" >&2; bad=1; }
		fi
	done
	[ "$bad" -eq 0 ] || exit 1

	if ! kmake_progress bzImage modules; then
		tail -n 30 "$out/build.log" >&2
		exit 1
	fi
	[ -f "$out/Module.symvers" ] || { echo "guest-kernel.sh: no Module.symvers in $out" >&2; exit 1; }
	ln -sfn arch/x86/boot/bzImage "$out/pvmap-image"
	touch "$out/.pvmap-built"
	record_build $((SECONDS - start))
	echo "guest-kernel.sh: built $name in $(minutes $((SECONDS - start))) minutes" >&2
	echo "$out"
}

if [ "$name" = --source ]; then
	case "${2:-}" in
	6.1 | 6.12)
		source_dir "linux-source-$2"
		[ -f "$src/.pvmap-unpacked" ] || { lock; unpack_source "linux-source-$2"; }
		echo "$src"
		exit 0
		;;
	esac
	echo "guest-kernel.sh: --source 6.1 or --source 6.12" >&2
	exit 2
fi
# --plan KERNEL: "cached"; "fetch" (Debian's, not yet in the cache); or
# "build [SECONDS FILES]", the last build's figures where there is one.
if [ "$name" = --plan ]; then
	name=${2:?usage: guest-kernel.sh --plan KERNEL}
	case " $BUILT_KERNELS " in
	*" $name "*)
		built_kernel_dir
		if [ -f "$out/.pvmap-built" ]; then echo cached; else echo "build $(last_build)"; fi
		exit 0
		;;
	esac
	case " $DEBIAN_KERNELS " in
	*" $name "*)
		debian_kernel_dir
		if [ -f "$out/.pvmap-built-$DEBIAN_RECIPE" ]; then echo cached; else echo fetch; fi
		exit 0
		;;
	esac
	echo "guest-kernel.sh: unknown kernel '$name'" >&2
	exit 2
fi
if [ "$name" = --xen ]; then
	mkdir -p "$cache/xen"
	xen_hypervisor
	exit 0
fi
case " $BUILT_KERNELS " in
*" $name "*) built_kernel; exit 0 ;;
esac
case " $DEBIAN_KERNELS " in
*" $name "*) debian_kernel; exit 0 ;;
esac
echo "guest-kernel.sh: unknown kernel '$name' (one of: $BUILT_KERNELS $DEBIAN_KERNELS)" >&2
exit 2
