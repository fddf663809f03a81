// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-pattern: write or check include/uapi/pvmap_pattern.h's pattern in a file,
 * for example the host's ivshmem backing file.
 *
 *   pvmap-pattern fill    FILE OFFSET LENGTH SEED
 *   pvmap-pattern verify  FILE OFFSET LENGTH SEED
 *   pvmap-pattern partial FILE BASE SEED_OLD SEED_NEW
 *
 * partial checks what rw_partial_fault_alignments' PWRITEs left at BASE
 * (include/uapi/pvmap_partial.h): in each case the new pattern up to the fault,
 * the old one from there to the end of the copy.
 *
 * Numbers may be decimal or 0x-hex. verify and partial exit 0 when every
 * byte matches, 1 on the first mismatch (printed), 2 on a usage or I/O error.
 */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uapi/pvmap_partial.h>
#include <uapi/pvmap_pattern.h>

#define CHUNK	65536

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || !*s || *end || *s == '-' ? -1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: pvmap-pattern fill|verify FILE OFFSET LENGTH SEED\n"
			"       pvmap-pattern partial FILE BASE SEED_OLD SEED_NEW\n");
	return 2;
}

static int partial(const char *file, uint64_t base, uint64_t seed_old, uint64_t seed_new)
{
	static uint8_t buf[PVMAP_PARTIAL_LEN];
	int fd = open(file, O_RDONLY), ret = 0;

	if (fd < 0) {
		fprintf(stderr, "pvmap-pattern: %s: %s\n", file, strerror(errno));
		return 2;
	}
	for (unsigned int i = 0; i < PVMAP_PARTIAL_CASES && !ret; i++) {
		uint64_t off = base + pvmap_partial_aperture_off(i), head = pvmap_partial_head(i);
		uint64_t tail = PVMAP_PARTIAL_LEN - head, bad;

		if (pread(fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "pvmap-pattern: %s at %#" PRIx64 ": short read\n", file, off);
			ret = 2;
		} else if ((bad = pvmap_pattern_check(buf, head, seed_new, off)) != head) {
			printf("case %u: byte %" PRIu64 " before the fault (at %" PRIu64
			       ") was not written\n", i, bad, head);
			ret = 1;
		} else if ((bad = pvmap_pattern_check(buf + head, tail, seed_old, off + head)) !=
			   tail) {
			printf("case %u: byte %" PRIu64 " past the fault (at %" PRIu64
			       ") was written\n", i, head + bad, head);
			ret = 1;
		}
	}
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	static uint8_t buf[CHUNK];
	uint64_t off, len, seed, done;
	int fill, fd;

	if (argc == 6 && !strcmp(argv[1], "partial")) {
		if (parse_u64(argv[3], &off) || parse_u64(argv[4], &seed) ||
		    parse_u64(argv[5], &len))
			return usage();
		return partial(argv[2], off, seed, len);
	}
	if (argc != 6)
		return usage();
	fill = !strcmp(argv[1], "fill");
	if ((!fill && strcmp(argv[1], "verify")) || parse_u64(argv[3], &off) ||
	    parse_u64(argv[4], &len) || parse_u64(argv[5], &seed))
		return usage();

	fd = open(argv[2], fill ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "pvmap-pattern: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	for (done = 0; done < len;) {
		size_t n = len - done < CHUNK ? (size_t)(len - done) : CHUNK;
		ssize_t io;

		if (fill) {
			pvmap_pattern_fill(buf, n, seed, off + done);
			io = pwrite(fd, buf, n, (off_t)(off + done));
		} else {
			io = pread(fd, buf, n, (off_t)(off + done));
		}
		if (io != (ssize_t)n) {
			fprintf(stderr, "pvmap-pattern: %s at %#" PRIx64 ": %s\n", argv[2],
				off + done, io < 0 ? strerror(errno) : "short transfer");
			close(fd);
			return 2;
		}
		if (!fill) {
			uint64_t bad = pvmap_pattern_check(buf, n, seed, off + done);

			if (bad != n) {
				printf("mismatch at offset %#" PRIx64 ": %#04x, want %#04x\n",
				       off + done + bad, buf[bad],
				       pvmap_pattern_byte(seed, off + done + bad));
				close(fd);
				return 1;
			}
		}
		done += n;
	}
	close(fd);
	return 0;
}
