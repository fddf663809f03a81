# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by tools/host/guest-kernel.sh (and tests/unit/test_host_tools.py):
# what a kernel build here will take, and a line at least every minute while
# it runs, so that a build of 10-20 minutes is never silent.
#
# $BUILD_TIMES (guest-kernel.sh: $PVMAP_CACHE/kernel/build-times) holds this
# machine's kernel builds, a line each: name, source package, seconds, files
# compiled. The estimate for $name, built from $srcname, is the newest of
# these that there is: a record of $name; a tree of $name in $cache/kernel
# built before the records began; the same for a kernel of the same source
# and arch.
# PVMAP_PROGRESS_EVERY: seconds between progress lines (default 60).
# The caller sets name, srcname, cache, out, BUILD_TIMES and kmake().
# shellcheck disable=SC2154
PROGRESS_EVERY_DEFAULT=60

# like KERNEL: a kernel of $srcname's source and $name's arch
like() {
	[ "${1%%-*}" = "${name%%-*}" ] || return 1
	case "$1" in
	*-6.12*) [ "$srcname" = linux-source-6.12 ] ;;
	*) [ "$srcname" = linux-source-6.1 ] ;;
	esac
}

# tree_figures DIR...: "SECONDS FILES NAME" of the newest tree built of
# those, the time from its .config (written as its build starts) to its
# .pvmap-built (as it ends)
tree_figures() {
	local d newest='' secs=0
	for d in "$@"; do
		if [ -f "$d/.pvmap-built" ] && [ -f "$d/.config" ] &&
			[ "$d/.pvmap-built" -nt "${newest:-/nonexistent}/.pvmap-built" ] &&
			[ "$(stat -c %Y "$d/.pvmap-built")" -gt "$(stat -c %Y "$d/.config")" ]; then
			newest=$d
		fi
	done
	[ -n "$newest" ] || return 1
	secs=$(($(stat -c %Y "$newest/.pvmap-built") - $(stat -c %Y "$newest/.config")))
	d=${newest##*/}
	echo "$secs $(build_files "$newest/build.log") ${d%-????????????}"
}

# kbuild's quiet output names each file it compiles: "  CC      mm/highmem.o"
build_files() {
	if [ -f "$1" ]; then grep -c '^  CC' "$1" || true; else echo 0; fi
}

last_build() {	# prints "SECONDS FILES NAME" or nothing
	local d own=() same=() kernel secs files
	for d in "$cache"/kernel/*-????????????; do
		[ "${d##*/}" = "$name-${d##*-}" ] && own+=("$d")
		like "${d##*/}" && same+=("$d")
	done
	[ -f "$BUILD_TIMES" ] || touch "$BUILD_TIMES"
	awk -v n="$name" '$1 == n && $3 > 0 { f = $3 " " $4 " " $1 } END { if (f) print f }' \
		"$BUILD_TIMES" | grep . && return 0
	tree_figures "${own[@]}" && return 0
	while read -r kernel secs files; do
		like "$kernel" && echo "$secs $files $kernel" && return 0
	done < <(awk '$3 > 0 { print $1, $3, $4 }' "$BUILD_TIMES" | tac)
	tree_figures "${same[@]}" || true
}

# record_build SECONDS: the build of $name in $out, for the next estimate
record_build() {
	echo "$name $srcname $1 $(build_files "$out/build.log")" >>"$BUILD_TIMES"
}

# kill_tree PID: PID and every process under it (make and its compilers)
kill_tree() {
	local child
	for child in $(pgrep -P "$1"); do
		kill_tree "$child"
	done
	kill -TERM "$1" 2>/dev/null || true
}

minutes() { echo $((($1 + 59) / 60)); }

# kmake_progress TARGETS...: kmake TARGETS (output in $out/build.log), with a
# line on stderr every PVMAP_PROGRESS_EVERY seconds while it runs: the files
# compiled so far against the last build's count, and the time left at the
# rate so far.
# Its clock starts at $progress_last where the caller set it (its own
# announcement of the build). A SIGTERM stops the build too.
kmake_progress() {
	local every=${PVMAP_PROGRESS_EVERY:-$PROGRESS_EVERY_DEFAULT} start=${progress_last:-$SECONDS}
	local last=$start est total files pid rc=0 line
	est=$(last_build)
	total=${est#* }
	total=${total%% *}
	pid=
	trap '[ -z "$pid" ] || kill_tree "$pid"; exit 143' TERM
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
	trap - TERM
	return "$rc"
}
