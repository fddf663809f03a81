// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-hv: the host side of pvmap's hypercall channel (include/uapi/pvmap_hv.h).
 *
 *   pvmap-hv --socket PATH --shm PATH [--vcpus N] [--ram PATH] [--control PATH]
 *            [--machine pc|q35] [--max-tables N] [--oneshot]
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
 * was written: one the guest wrote itself is a violation. The file holds
 * the RAM below QEMU's PCI hole, then the RAM above 4 GiB (--machine says
 * where the hole starts). The request path itself is pvmap_hv_core.c.
 *
 * --control PATH takes one command per line and answers each with lines
 * ending in "ok ..." or "error ...", the one line of the answer that starts
 * so: a reader knows the answer is whole when it has read that line, and
 * one that has not has lost it (an answer too long to send is replaced by
 * "error answer of N bytes, over the limit of CTL_OUT_MAX"):
 *   aperture BASE SIZE   the guest may map [BASE, BASE + SIZE) (a BAR)
 *   counts               calls, hypercalls, entries, refusals, violations,
 *                        requests the guest abandoned
 *   refusals             every refused request, with Xen's errno
 *   violations           every violation so far
 *   revoke FRAME         every registered PTE that still maps FRAME,
 *                        with the call that wrote it
 *   check                compare the registered entries with their shadow
 *   audit                check the model's invariants (each entry valid)
 *   garbage on|off       answer every request with garbage (a lying hypervisor)
 *   late MS              serve every request MS ms late (0: on time; at most 10000)
 *   refuse-clears on|off refuse every multicall that clears a PTE (-EPERM)
 *   fake-acks on|off     answer every multicall 0 without making any of it
 *
 * One client at a time; --oneshot exits when it disconnects. Counts go to
 * stderr at exit. A controller that does not read its answers is not
 * waited for: its next command is read once the last answer is sent.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <uapi/pvmap_hv.h>

#include "pvmap_hv_core.h"

#define CLIENT_ID	1
#define SHM_SIZE	(64 * 1024)	/* a power of 2, as a PCI BAR is */
#define CTL_OUT_MAX	(4 << 20)	/* the longest control answer sent */

struct hv {
	int listen_fd, client_fd, shm_fd, ram_fd;
	unsigned int nr_vcpus;
	int own[PVMAP_HV_MAX_VCPUS];	/* doorbells to us */
	int guest[PVMAP_HV_MAX_VCPUS];	/* completion interrupts to the guest */
	struct pvmap_hv_header *hdr;
	struct pvmap_hv *core;
	uint8_t *ram;
	uint64_t ram_size;
	uint64_t bad;			/* completions that could not be signalled */
	int ctl_listen, ctl_client;
	char ctl_buf[256];
	size_t ctl_len;
	char *ctl_out;			/* an answer not yet sent */
	size_t ctl_out_len, ctl_out_off;
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

/* Serve vCPU @v's posted request, if any; then interrupt the guest. */
static void serve(struct hv *hv, unsigned int v)
{
	struct pvmap_hv_request *req = area(hv, v);
	uint64_t one = 1;
	uint32_t seq;

	/* a spurious or repeated doorbell, or a request its guest gave up on */
	if (!pvmap_hv_take(hv->core, req, &seq))
		return;
	pvmap_hv_serve(hv->core, v, req);
	__atomic_store_n(&hv->hdr->calls, pvmap_hv_calls(hv->core), __ATOMIC_RELAXED);
	pvmap_hv_complete(req, seq);
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

/*
 * Back a page of the RAM file with storage before it is touched through
 * the mapping: on a full file system that is an error here, where a store
 * to a hole would be SIGBUS. A file system without fallocate is taken as is.
 */
static int reserve_ram(void *opaque, uint64_t offset, uint64_t len)
{
	struct hv *hv = opaque;

	if (!fallocate(hv->ram_fd, 0, (off_t)offset, (off_t)len) || errno == EOPNOTSUPP)
		return 0;
	return -errno;
}

static int setup_hypervisor(struct hv *hv, struct pvmap_hv_config *cfg, const char *ram_path)
{
	struct stat st;
	uint64_t below, above;

	hv->ram_fd = open(ram_path, O_RDWR | O_CLOEXEC);
	if (hv->ram_fd < 0 || fstat(hv->ram_fd, &st)) {
		fprintf(stderr, "pvmap-hv: guest RAM %s: %s\n", ram_path, strerror(errno));
		return -1;
	}
	hv->ram_size = (uint64_t)st.st_size;
	if (pvmap_hv_ram_layout(cfg->machine, hv->ram_size, &below, &above)) {
		fprintf(stderr, "pvmap-hv: guest RAM %s: %" PRIu64 " bytes is no RAM size QEMU "
			"gives a guest\n", ram_path, hv->ram_size);
		return -1;
	}
	if (hv->ram_size != (size_t)hv->ram_size) {
		fprintf(stderr, "pvmap-hv: guest RAM %s: %" PRIu64 " bytes cannot be mapped by a "
			"%zu-bit pvmap-hv\n", ram_path, hv->ram_size, sizeof(size_t) * 8);
		return -1;
	}
	hv->ram = mmap(NULL, (size_t)hv->ram_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       hv->ram_fd, 0);
	if (hv->ram == MAP_FAILED) {
		perror("mmap guest RAM");
		return -1;
	}
	fprintf(stderr, "pvmap-hv: guest RAM: %#" PRIx64 " bytes at 0%s%#" PRIx64
		" bytes at 4 GiB\n", below, above ? ", " : " and ", above);
	cfg->reserve = reserve_ram;
	cfg->opaque = hv;
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

/* Send what is left of the control answer; false when the controller is gone. */
static bool control_flush(struct hv *hv)
{
	while (hv->ctl_out_off < hv->ctl_out_len) {
		ssize_t n = send(hv->ctl_client, hv->ctl_out + hv->ctl_out_off,
				 hv->ctl_out_len - hv->ctl_out_off, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;	/* the rest when it reads: poll says POLLOUT */
		if (n <= 0)
			return false;
		hv->ctl_out_off += (size_t)n;
	}
	free(hv->ctl_out);
	hv->ctl_out = NULL;
	hv->ctl_out_len = hv->ctl_out_off = 0;
	return true;
}

static void control_close(struct hv *hv)
{
	if (hv->ctl_client >= 0)
		close(hv->ctl_client);
	hv->ctl_client = -1;
	hv->ctl_len = 0;
	free(hv->ctl_out);
	hv->ctl_out = NULL;
	hv->ctl_out_len = hv->ctl_out_off = 0;
}

/*
 * Run the complete lines the controller sent, one at a time: a line waits
 * until the answer to the one before is sent. False when it must go.
 */
static bool control_run(struct hv *hv)
{
	char *nl;

	while (!hv->ctl_out && (nl = strchr(hv->ctl_buf, '\n'))) {
		FILE *out = open_memstream(&hv->ctl_out, &hv->ctl_out_len);

		*nl = '\0';
		if (!out)
			return false;
		pvmap_hv_control(hv->core, hv->ctl_buf, out);
		if (fclose(out))
			return false;
		if (hv->ctl_out_len > CTL_OUT_MAX) {
			/* not sent cut short, nor dropped unsaid: an end that says why */
			size_t len = hv->ctl_out_len;

			free(hv->ctl_out);
			if (asprintf(&hv->ctl_out, "error answer of %zu bytes, over the limit of %d\n",
				     len, CTL_OUT_MAX) < 0) {
				hv->ctl_out = NULL;
				hv->ctl_out_len = 0;
				return false;
			}
			hv->ctl_out_len = strlen(hv->ctl_out);
		}
		hv->ctl_len -= (size_t)(nl + 1 - hv->ctl_buf);
		memmove(hv->ctl_buf, nl + 1, hv->ctl_len + 1);
		if (!control_flush(hv))
			return false;
	}
	return true;
}

/* Read what the control client sent; run each complete line. False at its end. */
static bool control_read(struct hv *hv)
{
	ssize_t n = recv(hv->ctl_client, hv->ctl_buf + hv->ctl_len,
			 sizeof(hv->ctl_buf) - 1 - hv->ctl_len, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return true;
	if (n <= 0)
		return false;
	hv->ctl_len += (size_t)n;
	hv->ctl_buf[hv->ctl_len] = '\0';
	if (!control_run(hv))
		return false;
	/* a line longer than the buffer is not a command */
	return hv->ctl_out || hv->ctl_len < sizeof(hv->ctl_buf) - 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: pvmap-hv --socket PATH --shm PATH [--vcpus N] [--ram PATH] "
		"[--control PATH] [--machine pc|q35] [--max-tables N] [--oneshot]\n");
}

/* Accept the newest controller (the last may be gone unseen): one at a time. */
static void control_accept(struct hv *hv)
{
	int fd = accept4(hv->ctl_listen, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	control_close(hv);
	hv->ctl_client = fd;
}

static void client_accept(struct hv *hv, bool *served)
{
	int fd = accept4(hv->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd >= 0 && hv->client_fd >= 0) {
		close(fd);	/* one client at a time */
	} else if (fd >= 0 && greet(hv, fd)) {
		fprintf(stderr, "pvmap-hv: greeting the client failed\n");
		close(fd);
	} else if (fd >= 0) {
		hv->client_fd = fd;
		*served = true;
		fprintf(stderr, "pvmap-hv: client %d connected\n", CLIENT_ID);
	}
}

/*
 * SIGINT and SIGTERM are blocked except inside ppoll(): one that comes
 * between the loop's test of @stop and the wait interrupts the wait,
 * instead of being noticed only after the next event.
 */
static int signals_setup(sigset_t *wait_mask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, wait_mask) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGTERM, &sa, NULL))
		return -1;
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static int serve_loop(struct hv *hv, bool oneshot, const sigset_t *wait_mask)
{
	bool served = false;

	while (!stop && !(oneshot && served && hv->client_fd < 0)) {
		struct pollfd pfd[4 + PVMAP_HV_MAX_VCPUS];
		unsigned int n = 0;

		pfd[n++] = (struct pollfd){ .fd = hv->listen_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = hv->client_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = hv->ctl_listen, .events = POLLIN };
		/* a controller with an answer pending is heard again once it took it */
		pfd[n++] = (struct pollfd){ .fd = hv->ctl_client,
					    .events = hv->ctl_out ? POLLOUT : POLLIN };
		for (unsigned int v = 0; v < hv->nr_vcpus; v++)
			pfd[n++] = (struct pollfd){ .fd = hv->own[v], .events = POLLIN };
		if (ppoll(pfd, n, NULL, wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			return 1;
		}
		if (pfd[0].revents & POLLIN)
			client_accept(hv, &served);
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			char buf[64];

			/* the protocol is one-way: anything readable is the end */
			if (read(hv->client_fd, buf, sizeof(buf)) <= 0) {
				close(hv->client_fd);
				hv->client_fd = -1;
				fprintf(stderr, "pvmap-hv: client %d disconnected\n", CLIENT_ID);
			}
		}
		if (pfd[2].revents & POLLIN) {
			control_accept(hv);
			pfd[3].revents = 0;
		}
		if (pfd[3].revents & POLLOUT &&
		    (!control_flush(hv) || !control_run(hv)))
			control_close(hv);
		else if ((pfd[3].revents & (POLLIN | POLLHUP | POLLERR)) && !control_read(hv))
			control_close(hv);
		for (unsigned int v = 0; v < hv->nr_vcpus; v++) {
			uint64_t count;

			if (!(pfd[4 + v].revents & POLLIN))
				continue;
			if (read(hv->own[v], &count, sizeof(count)) == sizeof(count))
				serve(hv, v);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "shm", required_argument, NULL, 'm' },
		{ "vcpus", required_argument, NULL, 'n' },
		{ "ram", required_argument, NULL, 'r' },
		{ "control", required_argument, NULL, 'c' },
		{ "machine", required_argument, NULL, 'M' },
		{ "max-tables", required_argument, NULL, 't' },
		{ "oneshot", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	static struct hv hv = { .listen_fd = -1, .client_fd = -1, .shm_fd = -1, .ram_fd = -1,
				.nr_vcpus = 1, .ctl_listen = -1, .ctl_client = -1 };
	struct pvmap_hv_config cfg = { .log = stderr };
	const char *sock_path = NULL, *shm_path = NULL, *ram_path = NULL, *ctl_path = NULL;
	bool oneshot = false, bad = false;
	sigset_t wait_mask;
	int c, rc;

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
		case 'M':
			bad |= strcmp(optarg, "pc") && strcmp(optarg, "q35");
			cfg.machine = strcmp(optarg, "q35") ? PVMAP_HV_PC : PVMAP_HV_Q35;
			break;
		case 't':
			cfg.max_tables = (unsigned int)strtoul(optarg, NULL, 0);
			bad |= !cfg.max_tables;
			break;
		case 'o':
			oneshot = true;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (bad || !sock_path || !shm_path || !hv.nr_vcpus || hv.nr_vcpus > PVMAP_HV_MAX_VCPUS ||
	    (1 + hv.nr_vcpus) * PVMAP_HV_AREA_SIZE > SHM_SIZE || (ctl_path && !ram_path)) {
		usage();
		return 2;
	}
	cfg.nr_vcpus = hv.nr_vcpus;
	if (signals_setup(&wait_mask)) {
		perror("signals");
		return 1;
	}
	if (ram_path && setup_hypervisor(&hv, &cfg, ram_path))
		return 1;
	hv.core = pvmap_hv_create(&cfg, ram_path ? hv.ram : NULL, hv.ram_size);
	if (!hv.core || setup(&hv, sock_path, shm_path))
		return 1;
	if (ctl_path) {
		hv.ctl_listen = listen_at(ctl_path);
		if (hv.ctl_listen < 0)
			return 1;
	}
	fprintf(stderr, "pvmap-hv: serving %u vCPUs on %s, shared memory %s%s%s\n", hv.nr_vcpus,
		sock_path, shm_path, ram_path ? ", guest RAM " : "", ram_path ? ram_path : "");

	rc = serve_loop(&hv, oneshot, &wait_mask);
	fprintf(stderr, "pvmap-hv: %" PRIu64 " calls, %" PRIu64 " refused\n",
		pvmap_hv_calls(hv.core), pvmap_hv_unknown(hv.core) + hv.bad);
	if (pvmap_hv_stub(hv.core)) {
		pvmap_hv_print_counts(hv.core, stderr);
		pvstub_report_violations(pvmap_hv_stub(hv.core), stderr, false);
	}
	pvmap_hv_destroy(hv.core);
	control_close(&hv);
	unlink(sock_path);
	if (ctl_path)
		unlink(ctl_path);
	return rc;
}
