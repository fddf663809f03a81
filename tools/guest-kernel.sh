#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-kernel.sh ARCH: build (or find in the cache) the guest kernel for ARCH
# (i386 or x86_64) from Debian's linux-source-6.1 and the config fragments in
# tools/guest/kconfig/, then print the build directory on the last line.
#
# Cache layout under ${PVMAP_CACHE:-$HOME/.cache/pvmap}:
#   linux-<debian version>/          the unpacked source (scripts/checkpatch.pl)
#   kernel/<arch>-<key>/             O= build tree: bzImage, Module.symvers
# <key> hashes the fragments, this script and the source version, so editing a
# fragment builds a new tree and leaves the old one for `make clean-cache`.
set -euo pipefail

arch=${1:?usage: guest-kernel.sh i386|x86_64}
case "$arch" in
i386 | x86_64) ;;
*) echo "guest-kernel.sh: unknown arch '$arch' (i386 or x86_64)" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
frags=("$here/guest/kconfig/common.config" "$here/guest/kconfig/$arch.config")
cache=${PVMAP_CACHE:-$HOME/.cache/pvmap}
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || { echo "guest-kernel.sh: $tarball missing: run tools/deps.sh" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
src=$cache/linux-$srcver
key=$(cat "${frags[@]}" "$0" <(echo "$srcver $arch") | sha256sum | cut -c1-12)
out=$cache/kernel/$arch-$key

mkdir -p "$cache/kernel"
exec 9>"$cache/.lock"
flock 9

if [ -f "$out/.pvmap-built" ]; then
	echo "$out"
	exit 0
fi

if [ ! -f "$src/.pvmap-unpacked" ]; then
	echo "guest-kernel.sh: unpacking $tarball into $src" >&2
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	touch "$src/.pvmap-unpacked"
fi

echo "guest-kernel.sh: building $arch kernel in $out (a few minutes)" >&2
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

# Kconfig drops what it cannot satisfy without a word: insist on every line.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set") want=$line ;;
	*) continue ;;
	esac
	if [[ "$want" == "# "* ]]; then
		opt=${want#\# }
		opt=${opt%% *}
		grep -q "^$opt=" "$out/.config" && { echo "guest-kernel.sh: $opt still set" >&2; bad=1; }
	else
		grep -qx "$want" "$out/.config" || { echo "guest-kernel.sh: wanted $want, got: $(grep "^${want%%=*}=" "$out/.config" || echo unset)" >&2; bad=1; }
	fi
done < <(cat "${frags[@]}")
[ "$bad" -eq 0 ] || exit 1

if ! kmake bzImage modules; then
	tail -n 30 "$out/build.log" >&2
	exit 1
fi
[ -f "$out/Module.symvers" ] || { echo "guest-kernel.sh: no Module.symvers in $out" >&2; exit 1; }
touch "$out/.pvmap-built"
echo "$out"
