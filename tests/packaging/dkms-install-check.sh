#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-install-check.sh: docs/install.md's install steps, as
# written, in a Debian bookworm i386 root, then the result booted. Run by
# `make check-full` (about 10 minutes; needs Debian's archive). Prints KTAP.
#
# 1. debootstrap an i386 bookworm root (cached under $PVMAP_CACHE) and copy
#    it; inside it, with uname reporting Debian's current 686-pae kernel:
#      apt-get install linux-headers-$(uname -r)
#      apt-get install ./pvmap-dkms_<version>_all.deb
#      dkms status pvmap
# 2. boot that kernel with an initramfs made of the root's /lib/modules and
#    a static busybox, which runs: modprobe pvmap; ls -l /dev/pvmap*;
#    dmesg | grep pvmap (docs/install.md's next steps), then modprobe -r pvmap.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${PVMAP_CACHE:-$HOME/.cache/pvmap}
debs=("$top"/build/deb/pvmap-dkms_*_all.deb)
[ -f "${debs[0]}" ] || { echo "dkms-install-check.sh: no build/deb/pvmap-dkms_*_all.deb: run make deb" >&2; exit 2; }
deb=${debs[0]}
ver=$(dpkg-deb -f "$deb" Version)
kdir=$("$top/tools/host/guest-kernel.sh" deb-686-pae | tail -n 1)
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")

work=$(mktemp -d /tmp/pvmap-dkms-install.XXXXXX)
root=$work/root
cleanup() {
	for m in proc sys dev/pts dev; do umount "$root/$m" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

echo "KTAP version 1"
echo "# Subtest: dkms-install"
echo "1..3"
pass=0 fail=0
result() {
	if [ "$1" -eq 0 ]; then
		echo "ok $2 $3"; pass=$((pass + 1))
	else
		echo "not ok $2 $3"; fail=$((fail + 1))
	fi
}

# --- 1. docs/install.md's commands in a Debian root ------------------------------------
# shellcheck source=SCRIPTDIR/../../tools/host/debian-root.sh
. "$top/tools/host/debian-root.sh"
if ! debian_root_i386_runs "$work"; then
	echo "# cannot run i386 programs, not even through qemu-i386-static"
	echo "not ok 1 apt_install_builds_and_installs"
	echo "# Totals: pass:0 fail:1 skip:0 total:3"
	exit 1
fi
base=$cache/debootstrap-bookworm-i386
# .pvmap-built-signed: a root made before debootstrap had to verify the
# archive's signature (its marker .pvmap-built) is made again
if [ ! -f "$base/.pvmap-built-signed" ]; then
	echo "# debootstrap of bookworm i386 into $base (once)"
	rm -rf "$base"
	debian_debootstrap --arch=i386 --variant=minbase bookworm "$base" \
		"$(debian_apt_sources | awk '$2 == "bookworm" { print $1; exit }')" \
		>"$work/debootstrap.log" 2>&1 || {
		tail -n 5 "$work/debootstrap.log" | sed 's/^/# /'
		echo "not ok 1 apt_install_builds_and_installs"
		echo "# Totals: pass:0 fail:1 skip:0 total:3"
		exit 1
	}
	touch "$base/.pvmap-built-signed"
fi
cp -a "$base" "$root"
# The host's own archives (bookworm, -updates, -security: Debian's current
# kernels are in bookworm-security), as a Debian guest would have them.
debian_apt_sources | sed 's/^/deb /; s/$/ main/' >"$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf"
for m in proc sys dev dev/pts; do mount --bind "/$m" "$root/$m"; done
# The guest's uname, so that $(uname -r) and dkms see the kernel it runs.
cat >"$root/usr/local/bin/uname" <<EOF
#!/bin/sh
case "\$1" in
-r) echo "$kver" ;;
-m) echo i686 ;;
*) exec /bin/uname "\$@" ;;
esac
EOF
chmod +x "$root/usr/local/bin/uname"
cp "$deb" "$root/root/"
cat >"$work/steps.sh" <<EOF
set -e
export DEBIAN_FRONTEND=noninteractive PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd /root
apt-get update -qq
apt-get install -y -qq linux-headers-\$(uname -r)
apt-get install -y -qq ./$(basename "$deb")
dkms status pvmap
EOF
chroot "$root" /bin/sh <"$work/steps.sh" >"$work/install.log" 2>&1 && rc=0 || rc=$?
status=$(grep "^pvmap/$ver" "$work/install.log" || true)
echo "# dkms status: ${status:-none}"
[ "$rc" -eq 0 ] && [[ "$status" == *"$kver"*": installed"* ]] || { tail -n 15 "$work/install.log" | sed 's/^/# /'; rc=1; }
result "$rc" 1 apt_install_builds_and_installs
ko=$root/lib/modules/$kver/updates/dkms/pvmap.ko
[ -f "$ko" ] && file "$ko" | grep -q "ELF 32-bit" && rc=0 || rc=1
result "$rc" 2 module_in_updates_dkms

# --- 2. boot it: modprobe pvmap from the installed tree ---------------------------
mkdir -p "$work/bb" "$work/initrd/bin" "$work/initrd/lib"
(cd "$work/bb" && apt-get download busybox-static:i386 >/dev/null 2>&1) &&
	dpkg-deb -x "$work"/bb/busybox-static_*.deb "$work/bb/x"
cp "$work/bb/x/bin/busybox" "$work/initrd/bin/busybox"
cp -a "$root/lib/modules" "$work/initrd/lib/"
cat >"$work/initrd/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs dev /dev
modprobe pvmap && echo "step: modprobe pvmap: ok"
ls -l /dev/pvmap*
dmesg | grep pvmap
[ -c /dev/pvmap0 ] && echo "PVMAP-INSTALLED-MODULE-BOUND"
modprobe -r pvmap && echo "step: modprobe -r pvmap: ok"
poweroff -f
EOF
chmod +x "$work/initrd/init"
mkdir -p "$work/initrd/proc" "$work/initrd/sys" "$work/initrd/dev"
(cd "$work/initrd" && find . | cpio -o -H newc --quiet) >"$work/initrd.cpio"
timeout 240 qemu-system-i386 -accel tcg -M pc -cpu max,vendor=GenuineIntel,family=6,model=15 \
	-smp 2 -m 512M -nodefaults -no-reboot -display none -serial stdio \
	-kernel "$kdir/pvmap-image" -initrd "$work/initrd.cpio" \
	-object memory-backend-ram,id=ap,size=64M -device ivshmem-plain,memdev=ap \
	-append "console=ttyS0 panic=-1 rdinit=/init" >"$work/boot.log" 2>&1 || true
grep -E "^step:|/dev/pvmap|pvmap" "$work/boot.log" | grep -v "^\[.*Command line" | sed 's/^/# /' | head -12
grep -q "PVMAP-INSTALLED-MODULE-BOUND" "$work/boot.log" &&
	grep -q "step: modprobe -r pvmap: ok" "$work/boot.log" && rc=0 || rc=1
result "$rc" 3 modprobe_binds_in_the_guest
echo "# Totals: pass:$pass fail:$fail skip:0 total:3"
[ "$fail" -eq 0 ]
