# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# debian-root.sh: sourced by the scripts that debootstrap a Debian root
# (dkms-install-check.sh, vm-image.sh), so that they ask apt and run i386
# programs the same way.

# "URI SUITE" of each bookworm archive this host's apt uses.
debian_apt_sources() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' | sort -u |
		awk '$2 ~ /^bookworm(-updates|-security)?$/'
}

# debian_root_i386_runs WORKDIR: succeed when this host runs i386 programs.
# A host kernel without IA32 emulation (seen: a 6.18 CI host) runs them
# through qemu-i386-static, registered with binfmt_misc the way qemu's
# scripts/qemu-binfmt-conf.sh does, with F (the interpreter opened now, so it
# works inside a chroot too).
debian_root_i386_runs() {
	local work=$1 bm=/proc/sys/fs/binfmt_misc
	_i386_true() {
		printf 'int main(void) { return 0; }\n' |
			gcc -m32 -static -x c - -o "$work/true32" 2>/dev/null && "$work/true32" 2>/dev/null
	}
	_i386_true && return 0
	echo "# this kernel does not run i386 programs: registering qemu-i386-static with binfmt_misc"
	mountpoint -q "$bm" || mount -t binfmt_misc binfmt_misc "$bm"
	[ -e "$bm/qemu-i386" ] || printf '%s' ':qemu-i386:M::\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00:\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-i386-static:F' >"$bm/register"
	_i386_true
}
