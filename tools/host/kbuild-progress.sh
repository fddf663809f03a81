# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by tools/host/guest-kernel.sh (and tests/unit/test_host_tools.py):
# what a kernel build here will take, and a line at least every minute while
# it runs, so that a build of 10-20 minutes is never silent.
#
# $BUILD_TIMES (guest-kernel.sh: $PVMAP_CACHE/kernel/build-times) holds this
# machine's kernel builds, a line each: name, source package, seconds, files
# compiled. The estimate for $name, built from $srcname: the newest record of
# the same kernel, else its newest tree in $cache/kernel built before the
# record began, else the same for any kernel of the same source.
# PVMAP_PROGRESS_EVERY: seconds between progress lines (default 60).
# The caller sets name, srcname, cache, out, BUILD_TIMES and kmake().
# shellcheck disable=SC2154

# tree_figures DIR...: the newest built tree's "SECONDS FILES", of the same
# source as $srcname; its .config is written as its build starts, its
# .pvmap-built as it ends.
tree_figures() {
	local f newest=
	for f in "$@"; do
		case "${f##*/}" in
		*-6.12*) [ "$srcname" = linux-source-6.12 ] || continue ;;
		*) [ "$srcname" = linux-source-6.1 ] || continue ;;
		esac
		f=$f/.pvmap-built
		[ -f "$f" ] && [ "$f" -nt "${newest:-/nonexistent}" ] && newest=$f
	done
	[ -n "$newest" ] || return 1
	f=${newest%/.pvmap-built}
	echo "$(($(stat -c %Y "$newest") - $(stat -c %Y "$f/.config"))) $(build_files "$f/build.log")"
}

# kbuild's quiet output names each file it compiles: "  CC      mm/highmem.o"
build_files() {
	if [ -f "$1" ]; then grep -c '^  CC' "$1" || true; else echo 0; fi
}

last_build() {	# prints "SECONDS FILES" or nothing
	local own=("$cache/kernel/$name-"????????????) same=("$cache"/kernel/*-????????????)
	[ -f "$BUILD_TIMES" ] || touch "$BUILD_TIMES"
	awk -v n="$name" '$1 == n && $3 > 0 { f = $3 " " $4 } END { if (f) print f }' "$BUILD_TIMES" | grep . ||
		tree_figures "${own[@]}" ||
		awk -v s="$srcname" '$2 == s && $3 > 0 { f = $3 " " $4 } END { if (f) print f }' "$BUILD_TIMES" | grep . ||
		tree_figures "${same[@]}" || true
}

# record_build SECONDS: the build of $name in $out, for the next estimate
record_build() {
	echo "$name $srcname $1 $(build_files "$out/build.log")" >>"$BUILD_TIMES"
}

minutes() { echo $((($1 + 59) / 60)); }

# kmake_progress TARGETS...: kmake TARGETS (output in $out/build.log), with a
# line on stderr every PVMAP_PROGRESS_EVERY seconds while it runs: the files
# compiled so far against the last build's count, and the time left at the
# rate so far.
kmake_progress() {
	local every=${PVMAP_PROGRESS_EVERY:-60} start=$SECONDS last=$SECONDS est total files pid
	local rc=0 line
	est=$(last_build)
	total=${est#* }
	kmake "$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		[ $((SECONDS - last)) -ge "$every" ] || continue
		last=$SECONDS
		files=$(build_files "$out/build.log")
		line="guest-kernel.sh: building $name: $files files compiled"
		if [ -n "$est" ] && [ "$total" -gt 0 ]; then
			line+=" of about $total ($((files * 100 / total))%)"
		fi
		line+=", $(((SECONDS - start) / 60)) min in"
		if [ -n "$est" ] && [ "$files" -gt $((total / 10)) ] && [ "$files" -lt "$total" ]; then
			line+=", about $(minutes $(((SECONDS - start) * (total - files) / files))) min left"
		fi
		echo "$line" >&2
	done
	wait "$pid" || rc=$?
	return "$rc"
}
