// SPDX-License-Identifier: GPL-2.0
/*
 * pvmapctl: inspect and use a pvmap aperture from inside the guest.
 *
 *   pvmapctl [-d DEV] [--json] info
 *   pvmapctl [-d DEV] [--json] write OFFSET (--file PATH | --pattern SEED --length N)
 *   pvmapctl [-d DEV] [--json] read OFFSET LENGTH [--file PATH]
 *   pvmapctl [-d DEV] [--json] verify OFFSET (--file PATH | --pattern SEED --length N)
 *   pvmapctl [-d DEV] [--json] stats
 *
 * DEV is a path (/dev/pvmap1) or a kind (ivshmem, stdvga, qxl); the default
 * is /dev/pvmap0. Numbers take 0x and K, M, G suffixes. read without --file
 * writes the raw bytes to standard output. Exit status: 0 success, 1 error,
 * 2 usage, 3 verify found a difference.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uapi/pvmap_kind.h>
#include <uapi/pvmap_pattern.h>
#include <uapi/pvmap.h>

static bool json;
static const char *prog = "pvmapctl";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pvmapctl [-d DEV] [--json] COMMAND ...\n"
		"  info                                   what the aperture is\n"
		"  write OFFSET --file PATH               copy a file into the aperture\n"
		"  write OFFSET --pattern SEED --length N write the test pattern\n"
		"  read OFFSET LENGTH [--file PATH]       copy out (default: to stdout)\n"
		"  verify OFFSET --file PATH | --pattern SEED --length N\n"
		"                                         compare; exit 3 on a difference\n"
		"  stats                                  the io_mapping engine's counters\n"
		"DEV: /dev/pvmapN or a kind (ivshmem, stdvga, qxl); default /dev/pvmap0.\n"
		"Numbers: decimal or 0x hex, with an optional K, M or G suffix.\n");
}

static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t parse_num(const char *what, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		goto bad;
	switch (*end) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	}
	if (*end)
		goto bad;
	return v;
bad:
	fprintf(stderr, "%s: bad %s '%s'\n", prog, what, s);
	usage(stderr);
	exit(2);
}

/* Open DEV (a path or a kind name) and read its INFO. */
static int open_device(const char *dev, struct pvmap_info *info)
{
	char path[300];
	int fd;

	if (strchr(dev, '/')) {
		snprintf(path, sizeof(path), "%s", dev);
	} else {
		struct dirent *de;
		DIR *dir = opendir("/dev");

		path[0] = '\0';
		while (dir && (de = readdir(dir))) {
			if (strncmp(de->d_name, "pvmap", 5))
				continue;
			snprintf(path, sizeof(path), "/dev/%s", de->d_name);
			fd = open(path, O_RDWR | O_CLOEXEC);
			if (fd >= 0 && !ioctl(fd, PVMAP_IOC_INFO, info) &&
			    !strcmp(pvmap_kind_name(info->kind), dev)) {
				closedir(dir);
				return fd;
			}
			if (fd >= 0)
				close(fd);
			path[0] = '\0';
		}
		if (dir)
			closedir(dir);
		die("no %s aperture (is pvmap.ko loaded?)", dev);
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s%s", path, strerror(errno),
		    errno == ENOENT ? " (is pvmap.ko loaded?)" : "");
	if (ioctl(fd, PVMAP_IOC_INFO, info))
		die("%s: INFO: %s", path, strerror(errno));
	return fd;
}

static void check_range(const struct pvmap_info *info, uint64_t off, uint64_t len)
{
	if (off > info->aperture_size || len > info->aperture_size - off)
		die("range %#" PRIx64 "+%#" PRIx64 " is outside the %" PRIu64 " MiB aperture",
		    off, len, (uint64_t)info->aperture_size >> 20);
}

static uint64_t rw(int fd, bool write, uint64_t off, void *buf, uint64_t len)
{
	struct pvmap_rw req = { .offset = off, .length = len, .user_ptr = (uintptr_t)buf };

	if (ioctl(fd, write ? PVMAP_IOC_PWRITE : PVMAP_IOC_PREAD, &req))
		die("%s at %#" PRIx64 ": %s", write ? "write" : "read", off, strerror(errno));
	if (req.done != len)
		die("short %s: %" PRIu64 " of %" PRIu64 " bytes", write ? "write" : "read",
		    (uint64_t)req.done, len);
	return req.done;
}

static uint8_t *read_file(const char *path, uint64_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf)
		die("%s: out of memory", path);
	n = read(fd, buf, st.st_size);
	if (n != st.st_size)
		die("%s: short read", path);
	close(fd);
	*len = st.st_size;
	return buf;
}

static int cmd_info(const struct pvmap_info *info, const char *dev)
{
	if (json) {
		printf("{\"device\": \"%s\", \"kind\": \"%s\", \"pci\": \"%s\", \"bar\": %u, "
		       "\"base\": %" PRIu64 ", \"size\": %" PRIu64 ", \"clears_on_unmap\": %s, "
		       "\"local_preemptible\": %s}\n",
		       dev, pvmap_kind_name(info->kind), info->pci_name, info->bar,
		       (uint64_t)info->aperture_base, (uint64_t)info->aperture_size,
		       info->flags & PVMAP_INFO_F_CLEARS_ON_UNMAP ? "true" : "false",
		       info->flags & PVMAP_INFO_F_LOCAL_PREEMPTIBLE ? "true" : "false");
		return 0;
	}
	printf("device:  %s\nkind:    %s\npci:     %s BAR%u\nbase:    %#" PRIx64 "\n"
	       "size:    %#" PRIx64 " (%" PRIu64 " MiB)\nunmap:   %s\nlocal:   %s\n",
	       dev, pvmap_kind_name(info->kind), info->pci_name, info->bar,
	       (uint64_t)info->aperture_base, (uint64_t)info->aperture_size,
	       (uint64_t)info->aperture_size >> 20,
	       info->flags & PVMAP_INFO_F_CLEARS_ON_UNMAP ?
	       "clears the PTE and flushes the TLB entry" :
	       "whole-aperture mapping stays (x86_64, hygiene=0)",
	       info->flags & PVMAP_INFO_F_LOCAL_PREEMPTIBLE ?
	       "preemptible (preempt notifiers take its maps off the CPU at a switch)" :
	       "atomic (no preempt notifiers in this kernel)");
	return 0;
}

static int cmd_stats(int fd)
{
	struct pvmap_stats st;

	if (ioctl(fd, PVMAP_IOC_STATS, &st))
		die("STATS: %s", strerror(errno));
	printf(json ? "{\"maps\": %" PRIu64 ", \"unmaps\": %" PRIu64 ", \"pte_writes\": %" PRIu64
		      ", \"local_flushes\": %" PRIu64 ", \"remote_flushes\": %" PRIu64
		      ", \"batches\": %" PRIu64 ", \"slow_path\": %" PRIu64
		      ", \"misuse\": %" PRIu64 ", \"live_slots\": ["
		    : "maps:           %" PRIu64 "\nunmaps:         %" PRIu64
		      "\npte_writes:     %" PRIu64 "\nlocal_flushes:  %" PRIu64
		      "\nremote_flushes: %" PRIu64 "\nbatches:        %" PRIu64
		      "\nslow_path:      %" PRIu64 "\nmisuse:         %" PRIu64
		      "\nlive_slots:    ",
	       (uint64_t)st.maps, (uint64_t)st.unmaps, (uint64_t)st.pte_writes,
	       (uint64_t)st.local_flushes, (uint64_t)st.remote_flushes, (uint64_t)st.batches,
	       (uint64_t)st.slow_path, (uint64_t)st.misuse);
	for (unsigned int cpu = 0; cpu < st.nr_cpus && cpu < PVMAP_STATS_MAX_CPUS; cpu++)
		printf(json ? "%s%u" : "%s%u", json && cpu ? ", " : " ", st.live_slots[cpu]);
	printf(json ? "]}\n" : "\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "file", required_argument, NULL, 'f' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "length", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *dev = "/dev/pvmap0", *file = NULL, *cmd;
	uint64_t seed = 0, len = 0, off = 0;
	bool have_seed = false, have_len = false;
	struct pvmap_info info;
	uint8_t *buf;
	int c, fd;

	while ((c = getopt_long(argc, argv, "d:jf:p:l:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'j': json = true; break;
		case 'f': file = optarg; break;
		case 'p': seed = parse_num("seed", optarg); have_seed = true; break;
		case 'l': len = parse_num("length", optarg); have_len = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind++];
	if (strcmp(cmd, "info") && strcmp(cmd, "stats") && strcmp(cmd, "read") &&
	    strcmp(cmd, "write") && strcmp(cmd, "verify")) {
		fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
		usage(stderr);
		return 2;
	}
	if ((!strcmp(cmd, "write") || !strcmp(cmd, "verify")) &&
	    (!!file == have_seed || (have_seed && !have_len))) {
		fprintf(stderr, "%s: %s needs --file PATH, or --pattern SEED with --length N\n",
			prog, cmd);
		return 2;
	}
	if (strcmp(cmd, "info") && strcmp(cmd, "stats")) {
		if (optind >= argc) {
			fprintf(stderr, "%s: %s needs an OFFSET\n", prog, cmd);
			return 2;
		}
		off = parse_num("offset", argv[optind++]);
	}
	if (!strcmp(cmd, "read")) {
		if (optind >= argc) {
			fprintf(stderr, "%s: read needs OFFSET LENGTH\n", prog);
			return 2;
		}
		len = parse_num("length", argv[optind++]);
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected '%s'\n", prog, argv[optind]);
		return 2;
	}

	fd = open_device(dev, &info);
	if (!strcmp(cmd, "info"))
		return cmd_info(&info, dev);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(fd);

	if (!strcmp(cmd, "read")) {
		check_range(&info, off, len);
		buf = malloc(len ? len : 1);
		if (!buf)
			die("out of memory");
		rw(fd, false, off, buf, len);
		if (file) {
			FILE *f = fopen(file, "wb");

			if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
				die("%s: %s", file, strerror(errno));
		} else if (fwrite(buf, 1, len, stdout) != len) {
			die("stdout: %s", strerror(errno));
		}
		if (json && file)
			printf("{\"read\": %" PRIu64 ", \"offset\": %" PRIu64 "}\n", len, off);
		return 0;
	}

	if (file) {
		buf = read_file(file, &len);
	} else {
		buf = malloc(len ? len : 1);
		if (!buf)
			die("out of memory");
		pvmap_pattern_fill(buf, len, seed, off);
	}
	check_range(&info, off, len);

	if (!strcmp(cmd, "write")) {
		rw(fd, true, off, buf, len);
		printf(json ? "{\"written\": %" PRIu64 ", \"offset\": %" PRIu64 "}\n"
			    : "wrote %" PRIu64 " bytes at %#" PRIx64 "\n", len, off);
		return 0;
	}

	uint8_t *have = malloc(len ? len : 1);
	uint64_t i;

	if (!have)
		die("out of memory");
	rw(fd, false, off, have, len);
	for (i = 0; i < len && have[i] == buf[i]; i++)
		;
	if (json)
		printf("{\"verified\": %" PRIu64 ", \"offset\": %" PRIu64 ", \"match\": %s}\n",
		       len, off, i == len ? "true" : "false");
	else if (i == len)
		printf("%" PRIu64 " bytes at %#" PRIx64 " match\n", len, off);
	else
		printf("differs at %#" PRIx64 ": %#04x, expected %#04x\n", off + i, have[i], buf[i]);
	return i == len ? 0 : 3;
}
