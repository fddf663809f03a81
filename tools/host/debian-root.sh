# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# debian-root.sh: sourced by the scripts that debootstrap a Debian root
# (dkms-install-check.sh, vm-image.sh), so that they run debootstrap, ask apt
# and run i386 programs the same way.

# Debian's archive keys (the debian-archive-keyring package, tools/deps.sh)
DEBIAN_ARCHIVE_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# debian_debootstrap ARGS...: debootstrap ARGS with the archive's signature
# required: the Release file verified with gpgv against Debian's keyring, so
# that a mirror or a network in between cannot hand the root other packages
# (without --force-check-gpg, debootstrap goes on unverified when it lacks
# gpgv or a keyring). Every Debian root of these scripts is made through it.
debian_debootstrap() {
	if [ ! -r "$DEBIAN_ARCHIVE_KEYRING" ]; then
		echo "debian-root.sh: no $DEBIAN_ARCHIVE_KEYRING (debian-archive-keyring): run tools/deps.sh" >&2
		return 1
	fi
	debootstrap --force-check-gpg --keyring="$DEBIAN_ARCHIVE_KEYRING" "$@"
}

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
