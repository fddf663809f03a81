#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vgpu-qemu.sh: fetch (or find in the cache) Debian trixie's QEMU with
# virtio-gpu's host-visible blobs, and print on the last line the path of a
# qemu-system-x86_64 that runs it. Bookworm's QEMU 7.2 has no hostmem window
# and backports' 10.0 refuses blob=true (built against bookworm's
# virglrenderer 0.10); trixie's 10.0 with virglrenderer 1.1 works, but
# needs trixie's libc. So the packages of vgpu-qemu.list are downloaded with
# a private apt configuration (its own sources list naming trixie, its own
# lists, cache and an empty dpkg status: the system's apt is untouched),
# checked by apt against Debian's archive keyring like every download, and
# unpacked into a root that trixie's own loader runs. Nothing is installed.
#
# Cache: ${PVMAP_CACHE:-$HOME/.cache/pvmap}/vgpu/apt/ (the private apt, its
# lists refreshed once a day) and vgpu/<key>/, key = a hash of RECIPE and
# every package's version, so a trixie update fetches a new root beside the
# old (make clean-cache removes them).
# Exit 1 with the reason when it cannot fetch, or when the QEMU it fetched
# cannot start virtio-gpu-gl with a host-visible window and blobs.
set -euo pipefail

# Bump when the steps below change what a fetched root holds.
RECIPE=1
here=$(cd "$(dirname "$0")" && pwd)
cache=${PVMAP_CACHE:-$HOME/.cache/pvmap}/vgpu
apt=$cache/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$apt/prefs" "$apt/conf.d"

die() { echo "vgpu-qemu.sh: $*" >&2; exit 1; }

exec 9>"$cache/.lock"
flock -w 600 9 || die "another fetch holds $cache/.lock"

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring missing: run tools/deps.sh"
cat >"$apt/sources.list" <<EOF
deb [signed-by=$keyring] http://deb.debian.org/debian trixie main
deb [signed-by=$keyring] http://deb.debian.org/debian-security trixie-security main
EOF
: >>"$apt/status"
# Every Dir::Etc path private too: the host's apt.conf.d (its update hooks,
# its Check-Valid-Until) is not read. Root downloads without apt's _apt
# sandbox user, who cannot enter a private cache under /root.
cat >"$apt/apt.conf" <<EOF
Dir::Etc::Main "$apt/apt.conf";
Dir::Etc::Parts "$apt/conf.d";
APT::Sandbox::User "root";
Dir::State::Lists "$apt/lists";
Dir::State::status "$apt/status";
Dir::Cache "$apt/cache";
Dir::Etc::SourceList "$apt/sources.list";
Dir::Etc::SourceParts "$apt/parts";
Dir::Etc::Preferences "$apt/prefs/none";
Dir::Etc::PreferencesParts "$apt/prefs";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
EOF
export APT_CONFIG=$apt/apt.conf

# Offline, the lists of the last update still name the root fetched then.
if [ -z "$(find "$apt/updated" -mtime -1 2>/dev/null)" ]; then
	if apt-get update >"$apt/update.log" 2>&1; then
		touch "$apt/updated"
	elif [ -e "$apt/updated" ]; then
		echo "vgpu-qemu.sh: apt-get update of trixie's lists failed; using those of" \
			"$(date -r "$apt/updated" +%F)" >&2
	else
		tail -n 5 "$apt/update.log" >&2
		die "apt-get update of trixie's lists failed"
	fi
fi

mapfile -t packages < <(sed 's/#.*//' "$here/vgpu-qemu.list" | tr -s ' \t' '\n' | sed '/^$/d')
versions=$(apt-cache policy "${packages[@]}" | awk '
	/^[^ ]/ { sub(":$", ""); pkg = $0 }
	/^  Candidate:/ { print pkg "=" $2 }')
# apt-cache policy prints nothing for a name trixie does not know at all
missing=$(for p in "${packages[@]}"; do
	grep -q "^$p=[^(]" <<<"$versions" || echo "$p"
done)
[ -z "$missing" ] || die "trixie has no $(echo $missing | cut -c1-200) (vgpu-qemu.list is out of date)"
key=$( (echo "recipe $RECIPE"; echo "$versions") | sha256sum | cut -c1-12)
out=$cache/$key
root=$out/root
lib=$root/usr/lib/x86_64-linux-gnu
qemu=$out/qemu-system-x86_64

if [ ! -f "$out/.pvmap-fetched" ]; then
	echo "vgpu-qemu.sh: fetching trixie's QEMU and $((${#packages[@]} - 1)) packages" >&2
	rm -rf "$out"
	mkdir -p "$out/deb" "$root"
	# shellcheck disable=SC2086 # one word per package=version
	(cd "$out/deb" && apt-get download $versions >"$out/fetch.log" 2>&1) ||
		{ tail -n 5 "$out/fetch.log" >&2; die "apt-get download failed"; }
	for deb in "$out"/deb/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
	rm -rf "$out/deb"
	# The library path puts the root's libraries before bookworm's, which
	# serve only what the list leaves out (Mesa, libva, libvulkan).
	cat >"$qemu" <<EOF
#!/bin/sh
# trixie's QEMU under its own loader (tools/host/vgpu-qemu.sh)
QEMU_MODULE_DIR=$lib/qemu exec $lib/ld-linux-x86-64.so.2 \\
	--library-path $lib:/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu \\
	$root/usr/bin/qemu-system-x86_64 -L $root/usr/share/qemu -L /usr/share/seabios "\$@"
EOF
	chmod +x "$qemu"
	echo "$versions" >"$out/versions"
	touch "$out/.pvmap-fetched"
fi

# The device the guests need, realized and stopped: a missing library (trixie
# moved on), bookworm's libraries (tools/deps.sh) or GL is named here, not
# in a guest that never boots. Whether blobs map is the guest test's to see.
check=$(printf '%s\n' '{"execute":"qmp_capabilities"}' '{"execute":"quit"}' |
	timeout 60 "$qemu" -machine pc -accel tcg -m 128 -nodefaults -S \
		-display egl-headless,rendernode=/dev/null \
		-device virtio-gpu-gl-pci,hostmem=256M,blob=true -qmp stdio 2>&1) ||
	{ echo "$check" | tail -n 3 >&2; die "trixie's QEMU cannot start virtio-gpu-gl with blobs"; }
grep -q '"SHUTDOWN"' <<<"$check" ||
	{ echo "$check" | tail -n 3 >&2; die "trixie's QEMU did not start"; }
echo "$qemu"
