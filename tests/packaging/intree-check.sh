#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# intree-check.sh: prove that guest/pvmap/ drops into a kernel tree as
# CONFIG_PVMAP, a plain copy, the way its Kconfig's header describes. Works
# on a hard-linked copy of the cached i386 source (files it edits are
# replaced, never written through) and a fresh O= tree; nothing in the cache
# changes. Prints KTAP.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$("$top/tools/host/guest-kernel.sh" i386 | tail -n 1)
src=$(readlink -f "$kdir/source")
work=$(mktemp -d /tmp/pvmap-intree.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

cp -al "$src" "$work/src"
dest=$work/src/drivers/misc/pvmap
mkdir "$dest"
cp -rL "$top/guest/pvmap/." "$dest/"
sed -i '$a source "drivers/misc/pvmap/Kconfig"' "$work/src/drivers/misc/Kconfig"
sed -i '$a obj-$(CONFIG_PVMAP) += pvmap/' "$work/src/drivers/misc/Makefile"

mkdir "$work/out"
cp "$kdir/.config" "$work/out/.config"
"$work/src/scripts/config" --file "$work/out/.config" -m PVMAP
kmake() { make -C "$work/src" O="$work/out" ARCH=i386 -j"$(nproc)" "$@" >>"$work/build.log" 2>&1; }

echo "KTAP version 1"
echo "# Subtest: intree"
echo "1..2"
pass=0 fail=0
if kmake olddefconfig && grep -qx 'CONFIG_PVMAP=m' "$work/out/.config"; then
	echo "ok 1 kconfig_accepts_config_pvmap"; pass=$((pass + 1))
else
	echo "not ok 1 kconfig_accepts_config_pvmap"; fail=$((fail + 1))
fi
if kmake W=1 KCFLAGS=-Werror drivers/misc/pvmap/ && [ -f "$work/out/drivers/misc/pvmap/pvmap.o" ]; then
	echo "ok 2 builds_in_tree"; pass=$((pass + 1))
else
	tail -n 20 "$work/build.log" | sed 's/^/# /'
	echo "not ok 2 builds_in_tree"; fail=$((fail + 1))
fi
echo "# Totals: pass:$pass fail:$fail skip:0 total:2"
[ "$fail" -eq 0 ]
