// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-audit: find stale mappings of virtual-GPU apertures in running QEMU
 * guests, from the host, over QMP.
 *
 *   pvmap-audit [--json] [--live FILE] [--aperture BASE:SIZE] SOCKET [...]
 *
 * For each guest: the apertures' guest-physical ranges from `info pci` (and
 * each --aperture given for that SOCKET: a range a device held before it
 * was unplugged, say), the vCPUs from `info cpus`, then each vCPU's page
 * tables (`info tlb` with that vCPU's cpu-index).
 * Every kernel virtual address that maps an aperture page is compared with
 * what pvmap says is live (--live: the guest's debugfs pvmap/live, for the
 * SOCKET that follows); one that pvmap does not account for is stale.
 * Mappings in the user half are listed as user mappings (a process's mmap),
 * not as stale. Exit: 0 clean, 1 stale mappings found, 2 could not audit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "audit_parse.h"

#define MAX_LIVE	4096
#define MAX_FOUND	4096

struct found {
	struct tlb_entry e;
	unsigned int vcpus;	/* bit mask */
	const char *kind;	/* "stale", "live", "user" */
};

struct guest {
	const char *socket, *live_file;
	char error[256];
	struct aperture ap[AUDIT_MAX_APERTURES];
	struct aperture given[AUDIT_MAX_APERTURES];	/* --aperture */
	int nap, ngiven, ncpus;
	struct live_range live[MAX_LIVE];
	int nlive;
	struct found found[MAX_FOUND];
	int nfound;
	int nstale, nlivemaps, nuser;
};

struct qmp {
	int fd;
	char *buf;
	size_t len, cap;
};

static int qmp_readline(struct qmp *q, char **line)
{
	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		ssize_t n;

		if (nl) {
			size_t l = nl - q->buf;

			*line = strndup(q->buf, l);
			memmove(q->buf, nl + 1, q->len - l - 1);
			q->len -= l + 1;
			return *line ? 0 : -ENOMEM;
		}
		if (q->len + 65536 > q->cap) {
			char *more = realloc(q->buf, q->cap * 2 + 65536);

			if (!more)
				return -ENOMEM;
			q->buf = more;
			q->cap = q->cap * 2 + 65536;
		}
		n = read(q->fd, q->buf + q->len, q->cap - q->len);
		if (n <= 0)
			return n ? -errno : -ECONNRESET;
		q->len += n;
	}
}

/* Run @json; its string result in *out (malloc()ed), or an error in @err. */
static int qmp_call(struct qmp *q, const char *json, char **out, char *err, size_t errlen)
{
	size_t len = strlen(json);

	*out = NULL;
	if (write(q->fd, json, len) != (ssize_t)len) {
		snprintf(err, errlen, "QMP write: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		char *line, *text;
		int rc = qmp_readline(q, &line);

		if (rc) {
			snprintf(err, errlen, "QMP read: %s", strerror(-rc));
			return -1;
		}
		switch (qmp_classify(line, &text)) {
		case QMP_EVENT:
		case QMP_GREETING:
			free(line);
			continue;
		case QMP_RETURN:
			free(line);
			*out = text ? text : strdup("");
			return 0;
		case QMP_ERROR:
			snprintf(err, errlen, "QMP error: %s", text ? text : "(no description)");
			free(text);
			free(line);
			return -1;
		default:
			snprintf(err, errlen, "malformed QMP reply: %.80s", line);
			free(line);
			return -1;
		}
	}
}

/*
 * One human-monitor command, on vCPU @cpu (-1: the monitor's default). Each
 * human-monitor-command runs in a monitor of its own: a "cpu N" before it
 * would not carry over, so the vCPU goes in its cpu-index argument.
 */
static int hmp(struct qmp *q, const char *cmd, int cpu, char **out, char *err, size_t errlen)
{
	char json[256], index[32] = "";

	if (cpu >= 0)
		snprintf(index, sizeof(index), ", \"cpu-index\": %d", cpu);
	snprintf(json, sizeof(json),
		 "{\"execute\": \"human-monitor-command\", \"arguments\": {\"command-line\": \"%s\"%s}}\n",
		 cmd, index);
	return qmp_call(q, json, out, err, errlen);
}

static bool is_live(const struct guest *g, uint64_t va)
{
	for (int i = 0; i < g->nlive; i++)
		if (va - g->live[i].va < g->live[i].npages * 4096)
			return true;
	return false;
}

/* i386 kernels start at 3 GiB; x86_64 ones in the upper canonical half. */
static bool is_user(uint64_t va, bool is64)
{
	return is64 ? va < 0xffff800000000000ULL : va < 0xc0000000ULL;
}

static void note(struct guest *g, const struct tlb_entry *e, unsigned int cpu)
{
	for (int i = 0; i < g->nfound; i++)
		if (g->found[i].e.va == e->va && g->found[i].e.pa == e->pa) {
			g->found[i].vcpus |= 1u << cpu;
			return;
		}
	if (g->nfound < MAX_FOUND)
		g->found[g->nfound++] = (struct found){ .e = *e, .vcpus = 1u << cpu };
}

static int audit(struct guest *g)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 30 };
	struct qmp q = { .fd = -1 };
	char *text = NULL, *line;
	bool is64 = false;
	int rc = -1;

	if (g->live_file) {
		FILE *f = fopen(g->live_file, "r");
		char buf[65536];
		size_t n;

		if (!f) {
			snprintf(g->error, sizeof(g->error), "%s: %s", g->live_file, strerror(errno));
			return -1;
		}
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		g->nlive = parse_live(buf, g->live, MAX_LIVE);
	}
	if (strlen(g->socket) >= sizeof(addr.sun_path)) {
		snprintf(g->error, sizeof(g->error), "socket path too long");
		return -1;
	}
	strcpy(addr.sun_path, g->socket);
	q.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (q.fd < 0 || connect(q.fd, (struct sockaddr *)&addr, sizeof(addr))) {
		snprintf(g->error, sizeof(g->error), "cannot connect to QMP at %s: %s (is the guest running?)",
			 g->socket, strerror(errno));
		goto out;
	}
	setsockopt(q.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (qmp_readline(&q, &line)) {
		snprintf(g->error, sizeof(g->error), "no QMP greeting from %s", g->socket);
		goto out;
	}
	free(line);
	if (qmp_call(&q, "{\"execute\": \"qmp_capabilities\"}\n", &text, g->error,
		     sizeof(g->error)))
		goto out;
	free(text);

	if (hmp(&q, "info pci", -1, &text, g->error, sizeof(g->error)))
		goto out;
	g->nap = parse_info_pci(text, g->ap, AUDIT_MAX_APERTURES);
	free(text);
	for (int i = 0; i < g->ngiven && g->nap < AUDIT_MAX_APERTURES; i++)
		g->ap[g->nap++] = g->given[i];
	if (hmp(&q, "info cpus", -1, &text, g->error, sizeof(g->error)))
		goto out;
	g->ncpus = parse_info_cpus(text);
	free(text);
	if (g->ncpus <= 0 || g->ncpus > 32) {
		snprintf(g->error, sizeof(g->error), "cannot count the vCPUs");
		goto out;
	}

	for (int cpu = 0; cpu < g->ncpus; cpu++) {
		if (hmp(&q, "info tlb", cpu, &text, g->error, sizeof(g->error)))
			goto out;
		if (strstr(text, "PG disabled") || !strchr(text, ':')) {
			snprintf(g->error, sizeof(g->error),
				 "vCPU %d has paging disabled: nothing to audit yet", cpu);
			free(text);
			goto out;
		}
		for (char *l = strtok(text, "\r\n"); l; l = strtok(NULL, "\r\n")) {
			struct tlb_entry e;

			if (parse_tlb_line(l, &e))
				continue;
			is64 |= e.va > 0xffffffffULL;
			for (int a = 0; a < g->nap; a++)
				if (e.pa <= g->ap[a].end && e.pa + e.size - 1 >= g->ap[a].start)
					note(g, &e, cpu);
		}
		free(text);
	}
	/* after the page-table check, which explains an early guest better */
	if (!g->nap) {
		snprintf(g->error, sizeof(g->error), "no virtual-GPU aperture in `info pci`");
		goto out;
	}
	for (int i = 0; i < g->nfound; i++) {
		struct found *f = &g->found[i];

		if (is_user(f->e.va, is64)) {
			f->kind = "user";
			g->nuser++;
		} else if (is_live(g, f->e.va)) {
			f->kind = "live";
			g->nlivemaps++;
		} else {
			f->kind = "stale";
			g->nstale++;
		}
	}
	rc = 0;
out:
	if (q.fd >= 0)
		close(q.fd);
	free(q.buf);
	return rc;
}

static void print_vcpus(unsigned int mask)
{
	bool first = true;

	for (unsigned int c = 0; c < 32; c++)
		if (mask & (1u << c)) {
			printf("%s%u", first ? "" : ",", c);
			first = false;
		}
}

static void report(const struct guest *g, bool json, bool last)
{
	if (json) {
		printf("{\"socket\": \"%s\", \"error\": ", g->socket);
		if (g->error[0])
			printf("\"%s\"", g->error);
		else
			printf("null");
		printf(", \"vcpus\": %d, \"apertures\": [", g->ncpus);
		for (int a = 0; a < g->nap; a++)
			printf("%s{\"kind\": \"%s\", \"bar\": %d, \"start\": %" PRIu64
			       ", \"end\": %" PRIu64 "}", a ? ", " : "", g->ap[a].kind,
			       g->ap[a].bar, g->ap[a].start, g->ap[a].end);
		printf("], \"mappings\": [");
		for (int i = 0; i < g->nfound; i++) {
			printf("%s{\"va\": %" PRIu64 ", \"pa\": %" PRIu64 ", \"flags\": \"%s\", "
			       "\"kind\": \"%s\", \"vcpus\": [", i ? ", " : "", g->found[i].e.va,
			       g->found[i].e.pa, g->found[i].e.flags, g->found[i].kind);
			print_vcpus(g->found[i].vcpus);
			printf("]}");
		}
		printf("], \"stale\": %d, \"live\": %d, \"user\": %d}%s\n", g->nstale,
		       g->nlivemaps, g->nuser, last ? "" : ",");
		return;
	}
	printf("guest %s:\n", g->socket);
	if (g->error[0]) {
		printf("  could not audit: %s\n", g->error);
		return;
	}
	for (int a = 0; a < g->nap; a++) {
		if (g->ap[a].bar < 0)
			printf("  range given with --aperture");
		else
			printf("  aperture %s BAR%d", g->ap[a].kind, g->ap[a].bar);
		printf(": %#" PRIx64 "-%#" PRIx64 " (%" PRIu64 " MiB)\n", g->ap[a].start,
		       g->ap[a].end, (g->ap[a].end - g->ap[a].start + 1) >> 20);
	}
	for (int i = 0; i < g->nfound; i++) {
		if (strcmp(g->found[i].kind, "stale"))
			continue;
		printf("  STALE: va %#" PRIx64 " -> pa %#" PRIx64 " flags %s on vCPU ",
		       g->found[i].e.va, g->found[i].e.pa, g->found[i].e.flags);
		print_vcpus(g->found[i].vcpus);
		printf("\n");
	}
	printf("  %d vCPUs audited: %d stale, %d live (pvmap's), %d user mapping(s) of "
	       "aperture pages\n", g->ncpus, g->nstale, g->nlivemaps, g->nuser);
}

static int usage(FILE *f)
{
	fprintf(f, "usage: pvmap-audit [--json] [--live FILE] [--aperture BASE:SIZE] SOCKET\n"
		   "                   [[--live FILE] [--aperture BASE:SIZE] SOCKET ...]\n"
		   "--live and --aperture (repeatable) apply to the SOCKET that follows them.\n"
		   "Exit status: 0 clean, 1 stale mappings found, 2 could not audit.\n");
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	struct guest *g = calloc(argc, sizeof(*g));
	struct aperture given[AUDIT_MAX_APERTURES] = { { 0 } };
	const char *live = NULL;
	int n = 0, ngiven = 0, stale = 0, failed = 0;
	bool json = false;

	if (!g)
		return 2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout);
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--live")) {
			if (++i == argc)
				return usage(stderr);
			live = argv[i];
		} else if (!strcmp(argv[i], "--aperture")) {
			uint64_t base, size;
			char *end;

			if (++i == argc || ngiven == AUDIT_MAX_APERTURES)
				return usage(stderr);
			base = strtoull(argv[i], &end, 0);
			if (*end != ':')
				return usage(stderr);
			size = strtoull(end + 1, &end, 0);
			if (*end || !size || base + size - 1 < base) {
				fprintf(stderr, "pvmap-audit: bad aperture %s\n", argv[i]);
				return usage(stderr);
			}
			given[ngiven++] = (struct aperture){
				.bar = -1, .start = base, .end = base + size - 1, .kind = "given",
			};
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "pvmap-audit: unknown option %s\n", argv[i]);
			return usage(stderr);
		} else {
			g[n].socket = argv[i];
			g[n].live_file = live;
			memcpy(g[n].given, given, sizeof(given));
			g[n].ngiven = ngiven;
			live = NULL;
			ngiven = 0;
			n++;
		}
	}
	if (!n)
		return usage(stderr);
	if (json)
		printf("{\"guests\": [\n");
	for (int i = 0; i < n; i++) {
		if (audit(&g[i])) {
			failed++;
			if (!json)
				fprintf(stderr, "pvmap-audit: %s: %s\n", g[i].socket, g[i].error);
		}
		stale += g[i].nstale;
		report(&g[i], json, i == n - 1);
	}
	if (json)
		printf("], \"stale\": %d, \"failed\": %d}\n", stale, failed);
	free(g);
	return failed ? 2 : stale ? 1 : 0;
}
