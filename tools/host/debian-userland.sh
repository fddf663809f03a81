#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-userland.sh ARCH: print, on stdout, gen_init_cpio spec lines that
# put Debian bookworm's modetest (package libdrm-tests) with its dynamic
# loader and every shared library it needs into a guest's initramfs. ARCH is
# i386 or amd64 (the Debian architecture of the guest's user space).
#
# The packages are fetched with apt-get download and unpacked into the cache
# (never installed on the host): libdrm-tests:ARCH and the closure of its
# Depends/Pre-Depends, which dpkg-shlibdeps makes a superset of what the
# ELF NEEDED entries ask for. The spec then names only what the programs
# need: each NEEDED soname, recursively, is looked up where Debian's glibc
# loader looks without an /etc/ld.so.cache (/lib/TRIPLET, /usr/lib/TRIPLET,
# /lib, /usr/lib), symlinks become `slink` lines and the files they lead to
# `file` lines, all at their Debian paths; the loader goes where the
# programs' PT_INTERP names it. /bin/modetest links to /usr/bin/modetest.
# Before a cache entry is marked built, the spec is laid out in a staging
# tree and modetest -h is run there through the staged loader (on a host
# whose kernel cannot run i386 ELF, through qemu-i386-static if present);
# `ld.so --list` must resolve every library inside the staging tree.
#
# The spec declares every directory before its contents, except those
# tools/host/initramfs.list already declares (/ /dev /proc /sys /bin /lib
# /lib/modules), which it never repeats: append it to that list. Comment
# lines (#) say which package each file comes from; gen_init_cpio skips them.
#
# Cache layout under ${PVMAP_CACHE:-$HOME/.cache/pvmap}/userland:
#   ARCH-<libdrm-tests version>-<key>/   one unpacked closure:
#     root/             the packages, dpkg-deb -x'd over each other
#     packages          the .deb files unpacked (name_version_arch.deb)
#     contents          "package path" for every file of those packages
#     initramfs.list    the spec this script prints
#     stage/            the spec's files laid out for the host check
#   ARCH.packages       the package names of the last closure resolved
# <key> hashes the closure's .deb file names (so its versions), PROGRAMS
# and RECIPE: a point release of glibc or libdrm unpacks a new entry.
set -euo pipefail

# Bump when the steps below change what a cache entry contains.
RECIPE=1
# The programs of libdrm-tests (its /usr/bin) that go into the guest.
PROGRAMS="modetest"
TOP=libdrm-tests

arch=${1:?usage: debian-userland.sh i386|amd64}
case "$arch" in
i386) triplet=i386-linux-gnu ;;
amd64) triplet=x86_64-linux-gnu ;;
*)
	echo "debian-userland.sh: ARCH is i386 or amd64, not '$arch'" >&2
	exit 2
	;;
esac
export LC_ALL=C

die() {
	echo "debian-userland.sh: $*" >&2
	exit 1
}

cache=${PVMAP_CACHE:-$HOME/.cache/pvmap}/userland
mkdir -p "$cache"
# Fetches take this lock (not guest-kernel.sh's: a kernel build holds that
# one for minutes); an entry already in the cache does not.
lock() {
	exec 9>"$cache/.lock"
	flock 9
}

# closure: the names of libdrm-tests:ARCH and of every package its
# Depends/Pre-Depends reach (virtual names dropped, their providers kept).
closure() {
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "$TOP:$arch" 2>/dev/null |
		grep -v '^[[:space:]<]' | sort -u
}

# debs NAME...: the .deb file names apt would download for NAME..., sorted;
# fails if apt has no candidate for one of them.
debs() {
	apt-get download --print-uris "$@" 2>/dev/null | awk '{ print $2 }' | sort
}

# The last closure's names give the key with one apt call; any change in
# the closure comes with a new version of one of those packages, so a
# different key, and then the closure is resolved again.
entry() {
	local ver
	ver=$(sed -n "s/^${TOP}_\([^_]*\)_$arch\.deb\$/\1/p" <<<"$files")
	[ -n "$ver" ] || return 1
	out=$cache/$arch-$ver-$({ echo "$files"; echo "$PROGRAMS recipe $RECIPE"; } |
		sha256sum | cut -c1-12)
}
out=
files=
last=()
[ ! -s "$cache/$arch.packages" ] || mapfile -t last <"$cache/$arch.packages"
if [ ${#last[@]} -gt 0 ] && files=$(debs "${last[@]}") && entry && [ -f "$out/.pvmap-built" ]; then
	cat "$out/initramfs.list"
	exit 0
fi
mapfile -t names < <(closure)
if [ ${#names[@]} -eq 0 ] || ! files=$(debs "${names[@]}") || ! entry; then
	echo "debian-userland.sh: apt knows no $TOP:$arch (or a package it depends" \
		"on); run tools/deps.sh (it adds the i386 architecture and updates the lists)" >&2
	exit 1
fi
[ -f "$out/.pvmap-built" ] || lock
if [ -f "$out/.pvmap-built" ]; then
	printf '%s\n' "${names[@]}" >"$cache/$arch.packages"
	cat "$out/initramfs.list"
	exit 0
fi

echo "debian-userland.sh: fetching $TOP:$arch and its dependencies into $out" >&2
rm -rf "$out"
mkdir -p "$out/deb" "$out/root"
(cd "$out/deb" && apt-get download "${names[@]}" >>"$out/fetch.log" 2>&1) ||
	{ tail -n 5 "$out/fetch.log" >&2; exit 1; }
for deb in "$out"/deb/*.deb; do
	pkg=$(dpkg-deb -f "$deb" Package)
	dpkg-deb -x "$deb" "$out/root"
	dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e "s|^|$pkg |" >>"$out/contents"
	echo "${deb##*/}" >>"$out/packages"
done
rm -rf "$out/deb"
root=$out/root
case "$root" in
*[[:space:]]*) die "gen_init_cpio takes no blank in a path: $root (set PVMAP_CACHE)" ;;
esac

# --- the spec --------------------------------------------------------------
declare -A seen=() needed=()
dirs=()
entries=()
queue=()

# from PATH: "# PATH: package version" (the package that ships PATH).
from() {
	local pkg
	pkg=$(awk -v p="$1" '$2 == p { print $1; exit }' "$out/contents")
	echo "# $1: ${pkg:-?} $(sed -n "s/^${pkg:-?}_\([^_]*\)_.*/\1/p" "$out/packages")"
}

# add PATH: put guest PATH in the spec, following symlinks inside the root
# (slink for each, file for the last); an ELF file joins the queue.
add() {
	local p=$1 t n=0
	while :; do
		[ -z "${seen[$p]:-}" ] || return 0
		seen[$p]=1
		dirs+=("$(dirname "$p")")
		if [ -L "$root$p" ]; then
			t=$(readlink "$root$p")
			entries+=("$(from "$p")" "slink $p $t 0777 0 0")
			case "$t" in
			/*) p=$(realpath -m -s "$t") ;;
			*) p=$(realpath -m -s "$(dirname "$p")/$t") ;;
			esac
			n=$((n + 1))
			[ "$n" -lt 40 ] || die "too many symlinks at $1"
			continue
		fi
		[ -f "$root$p" ] || die "$p: no such file in $root"
		entries+=("$(from "$p")" "file $p $root$p $(stat -c 0%a "$root$p") 0 0")
		if [ "$(head -c 4 "$root$p" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			queue+=("$p")
		fi
		return 0
	done
}

# follow DIR PATH: PATH after its symlinks, which resolve inside DIR.
follow() {
	local p=$2 t n
	for ((n = 0; n < 40; n++)); do
		if [ ! -L "$1$p" ]; then
			echo "$p"
			return 0
		fi
		t=$(readlink "$1$p")
		case "$t" in
		/*) p=$(realpath -m -s "$t") ;;
		*) p=$(realpath -m -s "$(dirname "$p")/$t") ;;
		esac
	done
	return 1
}

# exists PATH: PATH, following symlinks inside the root, is a file there.
exists() {
	local p
	p=$(follow "$root" "$1") && [ -f "$root$p" ]
}

search=("/lib/$triplet" "/usr/lib/$triplet" /lib /usr/lib)
interp=
for prog in $PROGRAMS; do
	add "/usr/bin/$prog"
	entries+=("slink /bin/$prog /usr/bin/$prog 0777 0 0")
	i=$(readelf -lW "$root/usr/bin/$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
	[ -n "$i" ] || die "/usr/bin/$prog has no PT_INTERP"
	[ -z "$interp" ] || [ "$interp" = "$i" ] || die "programs with different loaders: $interp $i"
	interp=$i
	add "$interp"
done
for ((q = 0; q < ${#queue[@]}; q++)); do
	elf=${queue[$q]}
	for so in $(readelf -dW "$root$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		[ -z "${needed[$so]:-}" ] || continue
		found=
		for d in "${search[@]}"; do
			if exists "$d/$so"; then
				found=$d/$so
				break
			fi
		done
		[ -n "$found" ] || die "$elf needs $so, which no package of the closure ships in ${search[*]}"
		needed[$so]=$found
		add "$found"
	done
done

{
	echo "# debian-userland.sh $arch: $PROGRAMS from Debian's $(sed -n "s/^${TOP}_\([^_]*\)_.*/$TOP \1/p" "$out/packages"), loader $interp"
	echo "# needed sonames: $(printf '%s\n' "${!needed[@]}" | sort | paste -sd ' ')"
	# Every parent of every path, parents first; not those of initramfs.list.
	for d in "${dirs[@]}"; do
		while [ "$d" != / ]; do
			echo "$d"
			d=$(dirname "$d")
		done
	done | sort -u | grep -vxE '/(dev|proc|sys|bin|lib|lib/modules)' |
		sed 's/.*/dir & 0755 0 0/'
	printf '%s\n' "${entries[@]}"
} >"$out/initramfs.list.tmp"

# --- the host check: the spec's files, alone, run modetest -------------------
# The staging tree holds the spec's files and links as the guest will; the
# staged loader runs the programs with the staged directories as its only
# library path (--list must name no file outside them), and as root also in
# a chroot of the tree, which is the guest's case: no ld.so.cache, the
# loader found by PT_INTERP, libraries by its default search path.
stage=$out/stage
rm -rf "$stage"
while read -r kind name a _; do
	case "$kind" in
	dir) mkdir -p "$stage$name" ;;
	file)
		mkdir -p "$(dirname "$stage$name")"
		ln "$a" "$stage$name"
		;;
	slink)
		mkdir -p "$(dirname "$stage$name")"
		ln -s "$a" "$stage$name"
		;;
	esac
done < <(grep -v '^#' "$out/initramfs.list.tmp")
run=("$stage$(follow "$stage" "$interp")" --inhibit-cache
	--library-path "$stage/lib/$triplet:$stage/usr/lib/$triplet:$stage/lib:$stage/usr/lib")
how="with the staged loader"
if ! "${run[@]}" --version >/dev/null 2>&1; then
	if [ "$arch" = i386 ] && command -v qemu-i386-static >/dev/null; then
		run=(qemu-i386-static "${run[@]}")
		how="with the staged loader under qemu-i386-static"
	else
		run=()
		how="not run: this host cannot run $arch programs"
	fi
fi
usage() {
	grep -q '^usage: .*modetest' <<<"$1" || die "modetest -h printed no usage: $1"
}
if [ ${#run[@]} -gt 0 ]; then
	for prog in $PROGRAMS; do
		listed=$("${run[@]}" --list "$stage/usr/bin/$prog" 2>&1) ||
			die "ld.so --list $stage/usr/bin/$prog failed: $listed"
		outside=$(sed -n 's/.* => \([^ ]*\) .*/\1/p' <<<"$listed" | grep -v "^$stage/" || true)
		[ -z "$outside" ] || die "$prog loads libraries from outside the spec: $outside"
	done
	usage "$("${run[@]}" "$stage/usr/bin/modetest" -h 2>&1 || true)"
	if [ "$(id -u)" -eq 0 ] && [ "${run[0]}" != qemu-i386-static ]; then
		usage "$(chroot "$stage" /bin/modetest -h 2>&1 || true)"
		how="$how and in a chroot of the staging tree"
	fi
fi
echo "debian-userland.sh: $arch spec: $(awk '$1 == "file" { print $3 }' "$out/initramfs.list.tmp" |
	xargs stat -c %s | awk '{ n++; s += $1 } END { print n " files, " s " bytes" }');" \
	"modetest -h $how" >&2
mv "$out/initramfs.list.tmp" "$out/initramfs.list"
printf '%s\n' "${names[@]}" >"$cache/$arch.packages"
touch "$out/.pvmap-built"
cat "$out/initramfs.list"
