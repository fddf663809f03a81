// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-hv: the host side of pvmap's hypercall channel (include/pvmap/hv_abi.h).
 *
 *   pvmap-hv --socket PATH --shm PATH [--vcpus N] [--oneshot]
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
 * One client at a time; --oneshot exits when it disconnects. Counts go to
 * stderr at exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <pvmap/hv_abi.h>

#define CLIENT_ID	1
#define SHM_SIZE	(64 * 1024)	/* a power of 2, as a PCI BAR is */

struct hv {
	int listen_fd, client_fd, shm_fd;
	unsigned int nr_vcpus;
	int own[PVMAP_HV_MAX_VCPUS];	/* doorbells to us */
	int guest[PVMAP_HV_MAX_VCPUS];	/* completion interrupts to the guest */
	struct pvmap_hv_header *hdr;
	uint64_t calls, bad;
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
	uint32_t seq = __atomic_load_n(&req->seq, __ATOMIC_ACQUIRE);
	uint64_t one = 1;

	if (seq == req->done)
		return;		/* a spurious or repeated doorbell */
	switch (req->op) {
	case PVMAP_HV_PING:
		req->result = 0;
		break;
	default:
		req->result = -ENOSYS;
		hv->bad++;
		break;
	}
	hv->calls++;
	__atomic_store_n(&hv->hdr->calls, hv->calls, __ATOMIC_RELAXED);
	__atomic_store_n(&req->done, seq, __ATOMIC_RELEASE);
	if (write(hv->guest[v], &one, sizeof(one)) != sizeof(one))
		hv->bad++;
}

static int setup(struct hv *hv, const char *sock_path, const char *shm_path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

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

	if (strlen(sock_path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "pvmap-hv: socket path too long: %s\n", sock_path);
		return -1;
	}
	strcpy(addr.sun_path, sock_path);
	unlink(sock_path);
	hv->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (hv->listen_fd < 0 || bind(hv->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(hv->listen_fd, 1)) {
		perror(sock_path);
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: pvmap-hv --socket PATH --shm PATH [--vcpus N] [--oneshot]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "shm", required_argument, NULL, 'm' },
		{ "vcpus", required_argument, NULL, 'n' },
		{ "oneshot", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct hv hv = { .listen_fd = -1, .client_fd = -1, .shm_fd = -1, .nr_vcpus = 1 };
	const char *sock_path = NULL, *shm_path = NULL;
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
		case 'o':
			oneshot = true;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (!sock_path || !shm_path || !hv.nr_vcpus || hv.nr_vcpus > PVMAP_HV_MAX_VCPUS ||
	    (1 + hv.nr_vcpus) * PVMAP_HV_AREA_SIZE > SHM_SIZE) {
		usage();
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (setup(&hv, sock_path, shm_path))
		return 1;
	fprintf(stderr, "pvmap-hv: serving %u vCPUs on %s, shared memory %s\n", hv.nr_vcpus,
		sock_path, shm_path);

	while (!stop && !(oneshot && served && hv.client_fd < 0)) {
		struct pollfd pfd[2 + PVMAP_HV_MAX_VCPUS];
		unsigned int n = 0;

		pfd[n++] = (struct pollfd){ .fd = hv.listen_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = hv.client_fd, .events = POLLIN };
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
		for (unsigned int v = 0; v < hv.nr_vcpus; v++) {
			uint64_t count;

			if (!(pfd[2 + v].revents & POLLIN))
				continue;
			if (read(hv.own[v], &count, sizeof(count)) == sizeof(count))
				serve(&hv, v);
		}
	}
	fprintf(stderr, "pvmap-hv: %" PRIu64 " calls, %" PRIu64 " refused\n", hv.calls, hv.bad);
	unlink(sock_path);
	return rc;
}
