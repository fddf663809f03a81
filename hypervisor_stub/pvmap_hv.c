// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-hv: the host side of pvmap's hypercall channel (include/pvmap/hv_abi.h).
 *
 *   pvmap-hv --socket PATH --shm PATH [--vcpus N] [--ram PATH] [--control PATH]
 *            [--oneshot]
 *
 * It is an ivshmem server (QEMU's docs/specs/ivshmem-spec.rst; Debian ships
 * none): QEMU's ivshmem-doorbell device connects to PATH (-chardev
 * socket,path=PATH) and gets, as 8-byte little-endian messages with file
 * descriptors over SCM_RIGHTS, the protocol version (0), its peer ID (1),
 * the shared memory (-1 with its fd), this daemon's N eventfds as peer
 * PVMAP_HV_PEER (a doorbell write of PVMAP_HV_PEER << 16 | v signals the
 * v-th), and its own N eventfds (which this daemon signals when it has
 * completed a request). Vector v is vCPU v's: its request area in the
 * shared memory is served when its eventfd fires.
 *
 * With --ram (the guest's RAM: QEMU's memory-backend-file,share=on) it is
 * the guest's hypervisor for pvmap's PTEs: the guest registers the entries
 * it owns and sends its updates as Xen multicalls, which libpvstub
 * validates as Xen would and writes into the guest's page tables in that
 * file. Before and after every call each registered entry must hold what
 * was written: one the guest wrote itself is a violation.
 *
 * --control PATH takes one command per line and answers each with lines
 * ending in "ok ..." or "error ...":
 *   aperture BASE SIZE   the guest may map [BASE, BASE + SIZE) (a BAR)
 *   counts               calls, hypercalls, entries, refusals, violations
 *   refusals             every refused request, with Xen's errno
 *   violations           every violation so far
 *   revoke FRAME         every registered PTE that still maps FRAME,
 *                        with the call that wrote it
 *   check                compare the registered entries with their shadow
 *
 * One client at a time; --oneshot exits when it disconnects. Counts go to
 * stderr at exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <pvmap/hv_abi.h>

#include "pvstub.h"

#define CLIENT_ID	1
#define SHM_SIZE	(64 * 1024)	/* a power of 2, as a PCI BAR is */
#define MAX_REFUSALS	256
#define DATA_OFFSET	offsetof(struct pvmap_hv_request, data)

/* A refused multicall entry, as the control socket lists it. */
struct refusal {
	uint64_t call;			/* the daemon's number of the request */
	unsigned int vcpu, op, index;	/* index: of the failing update or op */
	uint64_t arg0, arg1;		/* mmu_update ptr and val, or mmuext cmd and va */
	int rc;
};

struct hv {
	int listen_fd, client_fd, shm_fd;
	unsigned int nr_vcpus;
	int own[PVMAP_HV_MAX_VCPUS];	/* doorbells to us */
	int guest[PVMAP_HV_MAX_VCPUS];	/* completion interrupts to the guest */
	struct pvmap_hv_header *hdr;
	uint64_t calls, bad;
	/* the hypervisor, with --ram */
	struct pvstub *stub;
	uint8_t *ram;
	uint64_t ram_size;
	unsigned int abi;		/* the guest's, from HELLO: 32 or 64 */
	uint64_t multicalls, registered_calls;
	struct refusal refusals[MAX_REFUSALS];
	unsigned int nrefusals;
	uint64_t refusals_total;
	int ctl_listen, ctl_client;
	char ctl_buf[256];
	size_t ctl_len;
	/* the request being served: a private copy, so the guest cannot change it meanwhile */
	union {
		struct pvmap_hv_request req;
		uint8_t bytes[PVMAP_HV_AREA_SIZE];
	} copy;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One protocol message: @value, with @fd (or -1: none). */
static int send_msg(int sock, int64_t value, int fd)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	uint8_t le[8];
	struct iovec iov = { .iov_base = le, .iov_len = sizeof(le) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	for (unsigned int i = 0; i < 8; i++)
		le[i] = (uint8_t)((uint64_t)value >> (8 * i));
	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		ctl.hdr.cmsg_level = SOL_SOCKET;
		ctl.hdr.cmsg_type = SCM_RIGHTS;
		ctl.hdr.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&ctl.hdr), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof(le) ? 0 : -1;
}

/* The ivshmem server's greeting, in the order the spec gives. */
static int greet(struct hv *hv, int sock)
{
	int rc = send_msg(sock, 0, -1) || send_msg(sock, CLIENT_ID, -1) ||
		 send_msg(sock, -1, hv->shm_fd);

	for (unsigned int v = 0; !rc && v < hv->nr_vcpus; v++)
		rc = send_msg(sock, PVMAP_HV_PEER, hv->own[v]);
	for (unsigned int v = 0; !rc && v < hv->nr_vcpus; v++)
		rc = send_msg(sock, CLIENT_ID, hv->guest[v]);
	return rc;
}

static struct pvmap_hv_request *area(struct hv *hv, unsigned int vcpu)
{
	return (struct pvmap_hv_request *)((char *)hv->hdr + PVMAP_HV_AREA_SIZE * (1 + vcpu));
}

/*
 * A guest address in a request: an offset into the request's own area
 * (its copy), aligned for what is read there; NULL when out of bounds.
 */
static void *guest_mem(void *opaque, uint64_t addr, size_t len)
{
	struct hv *hv = opaque;

	if (addr < DATA_OFFSET || addr > sizeof(hv->copy) || len > sizeof(hv->copy) - addr ||
	    addr % (len < 8 ? 4 : 8))
		return NULL;
	return hv->copy.bytes + addr;
}

static void log_refusal(struct hv *hv, unsigned int v, unsigned int op, unsigned int index,
			uint64_t arg0, uint64_t arg1, int rc)
{
	hv->refusals_total++;
	if (hv->nrefusals < MAX_REFUSALS)
		hv->refusals[hv->nrefusals++] = (struct refusal){
			.call = hv->calls, .vcpu = v, .op = op, .index = index,
			.arg0 = arg0, .arg1 = arg1, .rc = rc,
		};
}

/*
 * Log a refused multicall entry with the update it stopped at: the done
 * counter, where the guest passed one, says which.
 */
static void log_entry(struct hv *hv, unsigned int v, const uint64_t *a, unsigned int op,
		      int rc)
{
	const unsigned int *done = a[2] ? guest_mem(hv, a[2], sizeof(*done)) : NULL;
	unsigned int i = done ? *done : 0;

	if (op == __HYPERVISOR_mmu_update) {
		const struct mmu_update *u = guest_mem(hv, a[0] + (uint64_t)i * sizeof(*u),
						       sizeof(*u));

		log_refusal(hv, v, op, i, u ? u->ptr : 0, u ? u->val : 0, rc);
	} else if (op == __HYPERVISOR_mmuext_op && hv->abi == 32) {
		/* 12-byte elements: the i-th may be only 4-aligned, so its fields one by one */
		uint64_t at = a[0] + (uint64_t)i * sizeof(struct pvstub_compat_mmuext_op);
		const uint32_t *cmd = guest_mem(hv, at, 4), *arg1 = guest_mem(hv, at + 4, 4);

		log_refusal(hv, v, op, i, cmd ? *cmd : 0, arg1 ? *arg1 : 0, rc);
	} else if (op == __HYPERVISOR_mmuext_op) {
		const struct mmuext_op *m = guest_mem(hv, a[0] + (uint64_t)i * sizeof(*m),
						      sizeof(*m));

		log_refusal(hv, v, op, i, m ? m->cmd : 0, m ? m->arg1.linear_addr : 0, rc);
	} else {
		log_refusal(hv, v, op, 0, a[0], a[1], rc);
	}
}

static int do_multicall(struct hv *hv, unsigned int v)
{
	uint64_t n = hv->copy.req.data[0], off = hv->copy.req.data[1];
	size_t size = hv->abi == 32 ? sizeof(struct pvstub_compat_multicall_entry) :
				      sizeof(struct multicall_entry);
	void *calls = n && n <= PVMAP_HV_AREA_SIZE / size ? guest_mem(hv, off, n * size) : NULL;
	int rc;

	if (!hv->abi)
		return -EINVAL;		/* no HELLO yet: the layout is unknown */
	if (!calls)
		return -EFAULT;
	hv->multicalls++;
	if (hv->abi == 32) {
		struct pvstub_compat_multicall_entry *e = calls;

		rc = pvstub_multicall_compat(hv->stub, v, e, (unsigned int)n);
		for (uint64_t i = 0; !rc && i < n; i++) {
			uint64_t a[6];

			for (unsigned int j = 0; j < 6; j++)
				a[j] = e[i].args[j];
			if (e[i].result)
				log_entry(hv, v, a, e[i].op, (int32_t)e[i].result);
		}
	} else {
		struct multicall_entry *e = calls;

		rc = pvstub_multicall(hv->stub, v, e, (unsigned int)n);
		for (uint64_t i = 0; !rc && i < n; i++)
			if (e[i].result)
				log_entry(hv, v, e[i].args, (unsigned int)e[i].op,
					  (int)(int64_t)e[i].result);
	}
	return rc;
}

/* REGISTER and UNREGISTER: data[0] pairs of (va, PTE machine address). */
static int do_register(struct hv *hv, bool add)
{
	__u64 *d = hv->copy.req.data, n = d[0], i;
	int rc = 0;

	if (n > PVMAP_HV_REGISTER_MAX)
		return -E2BIG;
	for (i = 0; i < n && !rc; i++) {
		uint64_t va = d[1 + 2 * i], maddr = d[2 + 2 * i];

		if (maddr >= hv->ram_size)
			rc = -EINVAL;
		else if (add)
			rc = pvstub_register_pte(hv->stub, va, maddr,
						 (uint64_t *)(hv->ram + (maddr & ~0xfffULL)));
		else
			rc = pvstub_unregister_pte(hv->stub, va, maddr);
	}
	d[0] = rc ? i - 1 : n;
	hv->registered_calls++;
	return rc;
}

static int do_request(struct hv *hv, unsigned int v)
{
	struct pvmap_hv_request *req = &hv->copy.req;

	if (req->op == PVMAP_HV_PING)
		return 0;
	if (!hv->stub)
		return -ENOSYS;		/* a channel only: no --ram */
	switch (req->op) {
	case PVMAP_HV_HELLO:
		if ((req->data[0] != 32 && req->data[0] != 64) ||
		    (hv->abi && hv->abi != req->data[0]) ||
		    (req->data[1] && pvstub_set_pat(hv->stub, req->data[1])))
			return -EINVAL;
		hv->abi = (unsigned int)req->data[0];
		req->data[0] = hv->nr_vcpus;
		req->data[1] = hv->ram_size >> 12;
		return 0;
	case PVMAP_HV_REGISTER:
	case PVMAP_HV_UNREGISTER:
		return do_register(hv, req->op == PVMAP_HV_REGISTER);
	case PVMAP_HV_MULTICALL:
		return do_multicall(hv, v);
	default:
		return -ENOSYS;
	}
}

/* Serve vCPU @v's posted request, if any; then interrupt the guest. */
static void serve(struct hv *hv, unsigned int v)
{
	struct pvmap_hv_request *req = area(hv, v);
	uint32_t seq = __atomic_load_n(&req->seq, __ATOMIC_ACQUIRE);
	uint64_t one = 1;
	int rc;

	if (seq == req->done)
		return;		/* a spurious or repeated doorbell */
	memcpy(&hv->copy, req, sizeof(hv->copy));
	hv->calls++;
	/*
	 * Before the call too: its updates may overwrite what the guest wrote
	 * itself since the last one (a PTE it set behind our back, then asks
	 * us to clear).
	 */
	if (hv->stub)
		pvstub_check_shadow(hv->stub, stderr);
	rc = do_request(hv, v);
	if (rc == -ENOSYS)
		hv->bad++;
	if (hv->stub)
		pvstub_check_shadow(hv->stub, stderr);
	/* the results, then the completion: the guest reads them once done == seq */
	memcpy(req->data, hv->copy.req.data, sizeof(req->data));
	req->result = rc;
	__atomic_store_n(&hv->hdr->calls, hv->calls, __ATOMIC_RELAXED);
	__atomic_store_n(&req->done, seq, __ATOMIC_RELEASE);
	if (write(hv->guest[v], &one, sizeof(one)) != sizeof(one))
		hv->bad++;
}

/* A listening Unix socket at @path; -1 on failure (reported). */
static int listen_at(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "pvmap-hv: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(addr.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 1)) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int setup_hypervisor(struct hv *hv, const char *ram_path)
{
	struct pvstub_config cfg = { .nr_vcpus = hv->nr_vcpus, .guest_mem = guest_mem,
				     .guest_opaque = hv };
	struct stat st;
	int fd = open(ram_path, O_RDWR | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || st.st_size < 4096) {
		fprintf(stderr, "pvmap-hv: guest RAM %s: %s\n", ram_path,
			fd < 0 ? strerror(errno) : "not a RAM file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	hv->ram_size = (uint64_t)st.st_size;
	hv->ram = mmap(NULL, hv->ram_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (hv->ram == MAP_FAILED) {
		perror("mmap guest RAM");
		return -1;
	}
	/* the frame table: the guest's RAM from frame 0; apertures come over --control */
	cfg.ram_frames = hv->ram_size >> 12;
	hv->stub = pvstub_create(&cfg);
	if (!hv->stub) {
		fprintf(stderr, "pvmap-hv: cannot create the hypervisor model\n");
		return -1;
	}
	return 0;
}

static int setup(struct hv *hv, const char *sock_path, const char *shm_path)
{
	hv->shm_fd = open(shm_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (hv->shm_fd < 0 || ftruncate(hv->shm_fd, SHM_SIZE)) {
		perror(shm_path);
		return -1;
	}
	hv->hdr = mmap(NULL, SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, hv->shm_fd, 0);
	if (hv->hdr == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	for (unsigned int v = 0; v < hv->nr_vcpus; v++) {
		hv->own[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		hv->guest[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (hv->own[v] < 0 || hv->guest[v] < 0) {
			perror("eventfd");
			return -1;
		}
	}
	*hv->hdr = (struct pvmap_hv_header){
		.version = PVMAP_HV_VERSION, .nr_vcpus = hv->nr_vcpus,
		.area_size = PVMAP_HV_AREA_SIZE,
	};
	__atomic_store_n(&hv->hdr->magic, PVMAP_HV_MAGIC, __ATOMIC_RELEASE);
	hv->listen_fd = listen_at(sock_path);
	return hv->listen_fd < 0 ? -1 : 0;
}

static const char *op_name(unsigned int op)
{
	switch (op) {
	case __HYPERVISOR_mmu_update:
		return "mmu_update";
	case __HYPERVISOR_update_va_mapping:
		return "update_va_mapping";
	case __HYPERVISOR_mmuext_op:
		return "mmuext_op";
	default:
		return "other";
	}
}

static void print_counts(const struct hv *hv, FILE *out)
{
	struct pvstub_counts c = { 0 };

	if (hv->stub)
		pvstub_counts(hv->stub, &c);
	fprintf(out, "counts calls=%" PRIu64 " multicalls=%" PRIu64 " entries=%" PRIu64
		" pte_writes=%" PRIu64 " invlpg=%" PRIu64 " tlb_flush=%" PRIu64
		" refused=%" PRIu64 " violations=%" PRIu64 " shadow_mismatches=%" PRIu64
		" registered=%u register_calls=%" PRIu64 " unknown=%" PRIu64 "\n",
		hv->calls, hv->multicalls, c.multicall_entries, c.pte_writes, c.invlpg,
		c.tlb_flush, c.refused, c.violations, c.shadow_mismatches,
		hv->stub ? pvstub_registered(hv->stub) : 0, hv->registered_calls, hv->bad);
}

/* One control command; its answer ends with a line "ok ..." or "error ...". */
static void control(struct hv *hv, const char *line, FILE *out)
{
	unsigned long long a, b;

	if (!hv->stub) {
		fprintf(out, "error no --ram: a channel only\n");
	} else if (sscanf(line, "aperture %lli %lli", &a, &b) == 2) {
		int rc = (a | b) & 0xfff ? -EINVAL : pvstub_add_aperture(hv->stub, a >> 12, b >> 12);

		fprintf(out, rc ? "error aperture %#llx+%#llx: %s\n" : "ok aperture %#llx+%#llx\n",
			a, b, strerror(-rc));
	} else if (!strcmp(line, "counts")) {
		print_counts(hv, out);
		fprintf(out, "ok\n");
	} else if (!strcmp(line, "refusals")) {
		for (unsigned int i = 0; i < hv->nrefusals; i++) {
			const struct refusal *r = &hv->refusals[i];

			fprintf(out, "refusal call=%" PRIu64 " vcpu=%u op=%s index=%u arg0=%#" PRIx64
				" arg1=%#" PRIx64 " rc=%d\n", r->call, r->vcpu, op_name(r->op),
				r->index, r->arg0, r->arg1, r->rc);
		}
		fprintf(out, "ok %" PRIu64 "\n", hv->refusals_total);
	} else if (!strcmp(line, "violations")) {
		unsigned int n = pvstub_report_violations(hv->stub, out, false);

		fprintf(out, "ok %u\n", n);
	} else if (sscanf(line, "revoke %lli", &a) == 1) {
		unsigned int n = pvstub_revoke(hv->stub, a, out);

		fprintf(out, "ok %u\n", n);
	} else if (!strcmp(line, "check")) {
		unsigned int n = pvstub_check_shadow(hv->stub, out);

		fprintf(out, "ok %u\n", n);
	} else {
		fprintf(out, "error unknown command: %s\n", line);
	}
}

/* Read what the control client sent; run each complete line. False at its end. */
static bool control_read(struct hv *hv)
{
	ssize_t n = read(hv->ctl_client, hv->ctl_buf + hv->ctl_len,
			 sizeof(hv->ctl_buf) - 1 - hv->ctl_len);
	char *nl;

	if (n <= 0)
		return false;
	hv->ctl_len += (size_t)n;
	hv->ctl_buf[hv->ctl_len] = '\0';
	while ((nl = strchr(hv->ctl_buf, '\n'))) {
		char *answer = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&answer, &len);
		bool sent;

		*nl = '\0';
		if (!out)
			return false;
		control(hv, hv->ctl_buf, out);
		fclose(out);
		sent = write(hv->ctl_client, answer, len) == (ssize_t)len;
		free(answer);
		if (!sent)
			return false;
		hv->ctl_len -= (size_t)(nl + 1 - hv->ctl_buf);
		memmove(hv->ctl_buf, nl + 1, hv->ctl_len + 1);
	}
	/* a line longer than the buffer is not a command */
	return hv->ctl_len < sizeof(hv->ctl_buf) - 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: pvmap-hv --socket PATH --shm PATH [--vcpus N] [--ram PATH] "
		"[--control PATH] [--oneshot]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "shm", required_argument, NULL, 'm' },
		{ "vcpus", required_argument, NULL, 'n' },
		{ "ram", required_argument, NULL, 'r' },
		{ "control", required_argument, NULL, 'c' },
		{ "oneshot", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	static struct hv hv = { .listen_fd = -1, .client_fd = -1, .shm_fd = -1, .nr_vcpus = 1,
				.ctl_listen = -1, .ctl_client = -1 };
	const char *sock_path = NULL, *shm_path = NULL, *ram_path = NULL, *ctl_path = NULL;
	bool oneshot = false, served = false;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock_path = optarg;
			break;
		case 'm':
			shm_path = optarg;
			break;
		case 'n':
			hv.nr_vcpus = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			ram_path = optarg;
			break;
		case 'c':
			ctl_path = optarg;
			break;
		case 'o':
			oneshot = true;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (!sock_path || !shm_path || !hv.nr_vcpus || hv.nr_vcpus > PVMAP_HV_MAX_VCPUS ||
	    (1 + hv.nr_vcpus) * PVMAP_HV_AREA_SIZE > SHM_SIZE || (ctl_path && !ram_path)) {
		usage();
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if ((ram_path && setup_hypervisor(&hv, ram_path)) || setup(&hv, sock_path, shm_path))
		return 1;
	if (ctl_path) {
		hv.ctl_listen = listen_at(ctl_path);
		if (hv.ctl_listen < 0)
			return 1;
	}
	fprintf(stderr, "pvmap-hv: serving %u vCPUs on %s, shared memory %s%s%s\n", hv.nr_vcpus,
		sock_path, shm_path, ram_path ? ", guest RAM " : "", ram_path ? ram_path : "");

	while (!stop && !(oneshot && served && hv.client_fd < 0)) {
		struct pollfd pfd[4 + PVMAP_HV_MAX_VCPUS];
		unsigned int n = 0;

		pfd[n++] = (struct pollfd){ .fd = hv.listen_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = hv.client_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = hv.ctl_listen, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = hv.ctl_client, .events = POLLIN };
		for (unsigned int v = 0; v < hv.nr_vcpus; v++)
			pfd[n++] = (struct pollfd){ .fd = hv.own[v], .events = POLLIN };
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			rc = 1;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			int fd = accept4(hv.listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0 && hv.client_fd >= 0) {
				close(fd);	/* one client at a time */
			} else if (fd >= 0 && greet(&hv, fd)) {
				fprintf(stderr, "pvmap-hv: greeting the client failed\n");
				close(fd);
			} else if (fd >= 0) {
				hv.client_fd = fd;
				served = true;
				fprintf(stderr, "pvmap-hv: client %d connected\n", CLIENT_ID);
			}
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			char buf[64];

			/* the protocol is one-way: anything readable is the end */
			if (read(hv.client_fd, buf, sizeof(buf)) <= 0) {
				close(hv.client_fd);
				hv.client_fd = -1;
				fprintf(stderr, "pvmap-hv: client %d disconnected\n", CLIENT_ID);
			}
		}
		if (pfd[2].revents & POLLIN) {
			int fd = accept4(hv.ctl_listen, NULL, NULL, SOCK_CLOEXEC);

			/* one controller at a time: the newest (the last may be gone unseen) */
			if (fd >= 0) {
				if (hv.ctl_client >= 0)
					close(hv.ctl_client);
				hv.ctl_client = fd;
				hv.ctl_len = 0;
				pfd[3].revents = 0;
			}
		}
		if ((pfd[3].revents & (POLLIN | POLLHUP | POLLERR)) && !control_read(&hv)) {
			close(hv.ctl_client);
			hv.ctl_client = -1;
		}
		for (unsigned int v = 0; v < hv.nr_vcpus; v++) {
			uint64_t count;

			if (!(pfd[4 + v].revents & POLLIN))
				continue;
			if (read(hv.own[v], &count, sizeof(count)) == sizeof(count))
				serve(&hv, v);
		}
	}
	fprintf(stderr, "pvmap-hv: %" PRIu64 " calls, %" PRIu64 " refused\n", hv.calls, hv.bad);
	if (hv.stub) {
		print_counts(&hv, stderr);
		pvstub_report_violations(hv.stub, stderr, false);
		pvstub_destroy(hv.stub);
	}
	unlink(sock_path);
	if (ctl_path)
		unlink(ctl_path);
	return rc;
}
