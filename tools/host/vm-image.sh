#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-image.sh ARCH: build, or find in the cache, a Debian bookworm VM image
# for ARCH (i386 or amd64) and print its directory on the last line. It holds:
#   disk.img      a raw ext4 root filesystem, made without loop devices
#                 (mkfs.ext4 -d), booted as /dev/vda (virtio-blk)
#   vmlinuz, initrd.img
#                 the image's own kernel and its initramfs-tools initrd,
#                 copied out of /boot for QEMU's -kernel and -initrd: the
#                 host boots these, written here before any VM ran, and
#                 never reads a disk a VM has written (pvmaplib/vm.py
#                 fetches a kernel the VM installs through its agent)
#   kernel        its release (uname -r); upgrade/ the debs of the next one
#   packages      dpkg -l of the image, what the key promised
# The root is debootstrap's (bookworm main, minbase) with what a VM
# administrator has: systemd, udev, the kernel (linux-image-ABI-686-pae or
# -amd64) and its headers, dkms, Xorg (xserver-xorg-core: its modesetting
# driver needs no GL), x11-apps (x11perf, xwd, xwud), weston. Nothing of
# pvmap is in it: tools/host/vm installs pvmap-dkms in the booted VM.
#
# Two kernel ABIs: the image has bookworm's older one; upgrade/ holds the
# metapackage's current ABI (linux-image-FLAVOUR, its headers and what they
# need beyond the image), which vm_dkms_upgrade installs with apt. The VM has
# no network; every package comes from the host's apt (its bookworm lists).
#
# The one thing added to the root is the host's way in: pvmap-vm-agent, a
# shell loop on a virtio-serial port (/dev/virtio-ports/pvmap.agent) that runs
# the scripts tools/host/vm sends, started by systemd like any service.
#
# The cache key hashes this script (its package list and steps) and the two
# ABIs: Debian moving its kernel, or an edit here, builds a new image.
# Cache: ${PVMAP_CACHE:-$HOME/.cache/pvmap}/vm/ARCH-<key>/.
set -euo pipefail

arch=${1:?usage: vm-image.sh i386|amd64}
case "$arch" in
i386) flavour=686-pae ;;
amd64) flavour=amd64 ;;
*) echo "vm-image.sh: no image for $arch (i386 or amd64)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
cache=${PVMAP_CACHE:-$HOME/.cache/pvmap}
# shellcheck source=debian-root.sh
. "$here/debian-root.sh"

# apparmor and firmware-linux-free: the kernel image's Recommends, which apt
# installs with it (debootstrap does not), so that the upgrade needs nothing
# else; fbset for con2fbmap (a VT onto pvmap_drm's framebuffer).
PACKAGES="systemd-sysv udev kmod procps pciutils kbd fbset initramfs-tools
apparmor firmware-linux-free
dkms gcc make libc6-dev
xserver-xorg-core x11-apps x11-xserver-utils weston"

# --- the two kernel ABIs, from bookworm (main) -------------------------------
# Every linux-image-6.1.0-N-FLAVOUR that bookworm's list carries, oldest first.
bookworm_abis() {
	apt-cache search --names-only "^linux-image-[0-9.]+-[0-9]+-$flavour\$" |
		awk '{ print $1 }' | while read -r pkg; do
		# (grep reads it all: -q would close the pipe under pipefail)
		apt-cache madison "$pkg:$arch" | grep " bookworm/main $arch Packages" >/dev/null &&
			echo "$pkg" | sed "s/^linux-image-\(.*\)-$flavour\$/\1/"
	done | sort -V
}
mapfile -t abis < <(bookworm_abis)
if [ ${#abis[@]} -lt 2 ]; then
	echo "vm-image.sh: apt knows fewer than two bookworm $flavour kernel ABIs (${abis[*]:-none});" \
		"run tools/deps.sh" >&2
	exit 1
fi
abi_new=${abis[-1]}
abi_old=${abis[-2]}
kver=$abi_old-$flavour

key=$( { cat "$0" "$here/debian-root.sh"; echo "$abi_old $abi_new"; } | sha256sum | cut -c1-12)
out=$cache/vm/$arch-$key
if [ -f "$out/.pvmap-built" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache/vm"
exec 9>"$cache/vm/.lock"
flock 9
if [ -f "$out/.pvmap-built" ]; then
	echo "$out"
	exit 0
fi

# A root no build finished: first what debootstrap mounted in it (/proc,
# /sys, ... when it failed inside), deepest first, then the files, never
# crossing into a filesystem still mounted there. For a build that stopped
# (the trap) and one killed before its trap could run (the next build).
remove_root() {
	local root
	root=$(realpath -m "$1")
	awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts |
		sort -r | while read -r m; do umount -l "$m" || true; done
	rm -rf --one-file-system "$root"
}

start=$(date +%s)
echo "vm-image.sh: building the bookworm $arch image ($kver; upgrade: $abi_new-$flavour) in $out" >&2
remove_root "$out/root"
rm -rf --one-file-system "$out"
mkdir -p "$out"
root=$out/root
log=$out/build.log
cleanup() {
	[ -f "$out/.pvmap-built" ] || remove_root "$root"
}
trap cleanup EXIT
fail() {
	echo "vm-image.sh: $*; the end of $log:" >&2
	tail -n 20 "$log" | sed 's/^/  /' >&2
	exit 1
}

[ "$arch" = amd64 ] || debian_root_i386_runs "$out" || fail "this host cannot run i386 programs"
mirror=$(debian_apt_sources | awk '$2 == "bookworm" { print $1; exit }')
include=$(echo $PACKAGES "linux-image-$kver" "linux-headers-$kver" | tr ' ' ',')
echo "vm-image.sh: debootstrap (about 10 minutes)" >&2
debian_debootstrap --arch="$arch" --variant=minbase --include="$include" bookworm "$root" \
	"$mirror" >"$log" 2>&1 || fail "debootstrap failed"

# --- the system an administrator would have ----------------------------------
echo "/dev/vda / ext4 errors=remount-ro 0 1" >"$root/etc/fstab"
echo "pvmap-vm" >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tpvmap-vm\n' >"$root/etc/hosts"
debian_apt_sources | sed 's/^/deb /; s/$/ main/' >"$root/etc/apt/sources.list"
# root logs in on the serial console without a password (a test VM)
chroot "$root" passwd -d root >>"$log" 2>&1
# Timers that would start apt or man-db work under TCG in the middle of a test.
for unit in apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer fstrim.timer; do
	rm -f "$root/etc/systemd/system/timers.target.wants/$unit"
done

# The host's way in (tools/host/vm): one line per request, "ID BASE64-SCRIPT";
# one line per reply, "ID RC BASE64-OUTPUT". The script runs as root with bash,
# its stdout and stderr together; nothing runs between requests.
install -D -m 0755 /dev/stdin "$root/usr/local/sbin/pvmap-vm-agent" <<'EOF'
#!/bin/bash
# pvmap-vm-agent: run what the host (pvmap's tools/host/vm) sends on the
# virtio-serial port pvmap.agent. Not part of pvmap: only of its test VM.
port=/dev/virtio-ports/pvmap.agent
exec 3<>"$port"
while read -r id script <&3; do
	[ -n "$id" ] || continue
	dir=$(mktemp -d)
	if printf '%s' "$script" | base64 -d >"$dir/script" 2>"$dir/out"; then
		(cd /root && exec bash "$dir/script") </dev/null >"$dir/out" 2>&1
		rc=$?
	else
		rc=126	# not run: a request cut short or garbled
	fi
	printf '%s %s %s\n' "$id" "$rc" "$(base64 -w0 "$dir/out")" >&3
	rm -rf "$dir"
done
EOF
install -D -m 0644 /dev/stdin "$root/etc/systemd/system/pvmap-vm-agent.service" <<'EOF'
[Unit]
Description=pvmap test VM agent (runs the host's scripts)
ConditionPathExists=/dev/virtio-ports/pvmap.agent
After=systemd-udev-settle.service dev-virtio\x2dports-pvmap.agent.device
BindsTo=dev-virtio\x2dports-pvmap.agent.device
# the host disconnecting ends the loop (EOF); it comes back at once
StartLimitIntervalSec=0

[Service]
ExecStart=/usr/local/sbin/pvmap-vm-agent
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/pvmap-vm-agent.service \
	"$root/etc/systemd/system/multi-user.target.wants/pvmap-vm-agent.service"
# udev tags virtio ports for systemd only when asked
install -D -m 0644 /dev/stdin "$root/etc/udev/rules.d/90-pvmap-vm-agent.rules" <<'EOF'
KERNEL=="vport*", ATTR{name}=="pvmap.agent", TAG+="systemd"
EOF

# --- the next kernel ABI, for vm_dkms_upgrade --------------------------------
# The metapackages at bookworm's version (they depend on the new ABI), the new
# ABI's image and headers, and what those need that the image lacks.
meta_ver=$(apt-cache madison "linux-image-$flavour:$arch" | awk -F' *[|] *' '$3 ~ / bookworm\/main / && !v { v = $2 } END { print v }')
mkdir -p "$out/upgrade"
(cd "$out/upgrade" && apt-get download "linux-image-$flavour:$arch=$meta_ver" \
	"linux-headers-$flavour:$arch=$meta_ver" "linux-image-$abi_new-$flavour:$arch" \
	"linux-headers-$abi_new-$flavour:$arch" "linux-headers-$abi_new-common" \
	"linux-kbuild-${abi_new%.*-*}:$arch") >>"$log" 2>&1 ||
	fail "apt-get download of the $abi_new kernel failed"
# a kbuild of the same version as the image's is already there: keep the list
# honest by letting apt decide; it skips what is installed at that version.

# --- the disk ------------------------------------------------------------------
chroot "$root" dpkg -l >"$out/packages"
cp "$root/boot/vmlinuz-$kver" "$out/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$out/initrd.img" || fail "no initramfs-tools initrd for $kver"
echo "$kver" >"$out/kernel"
rm -rf "$root/var/cache/apt/archives/"*.deb
used=$(du -sm "$root" | cut -f1)
# room for pvmap's DKMS builds, a second kernel with headers, Xorg's logs
size=$((used + 2048))
mkfs.ext4 -q -L pvmap-vm -d "$root" "$out/disk.img" "${size}M" >>"$log" 2>&1 || fail "mkfs.ext4 -d failed"
rm -rf "$root"
echo "vm-image.sh: built in $(($(date +%s) - start)) s ($used MiB used of ${size} MiB)" | tee -a "$log" >&2
touch "$out/.pvmap-built"
echo "$out"
