// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the guest's init and test programs; see guest.h. */
#define _GNU_SOURCE
#include "guest.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HOST_SYNC_TIMEOUT_MS	60000

bool guest_cmdline_get(const char *key, char *buf, size_t len)
{
	char cmdline[4096], want[128];
	char *tok, *save;

	if (guest_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		return false;
	snprintf(want, sizeof(want), "pvtest.%s=", key);
	for (tok = strtok_r(cmdline, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (strncmp(tok, want, strlen(want)) == 0) {
			snprintf(buf, len, "%s", tok + strlen(want));
			return true;
		}
	}
	return false;
}

void guest_module_params(char *buf, size_t len)
{
	if (!guest_cmdline_get("modparams", buf, len))
		buf[0] = '\0';
	for (char *c = buf; *c; c++)
		if (*c == ',')
			*c = ' ';
}

bool guest_host_sync(const char *tag)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char line[256], want[160];
	size_t used = 0;

	snprintf(want, sizeof(want), "pvmap-ack %s", tag);
	printf("pvmap-sync: %s\n", tag);
	fflush(stdout);
	while (poll(&pfd, 1, HOST_SYNC_TIMEOUT_MS) > 0) {
		ssize_t n = read(STDIN_FILENO, line + used, sizeof(line) - 1 - used);

		if (n <= 0)
			return false;
		used += n;
		line[used] = '\0';
		if (strstr(line, want))
			return true;
		if (used == sizeof(line) - 1)
			used = 0;
	}
	return false;
}

long guest_read_file(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used < len - 1 && (n = read(fd, buf + used, len - 1 - used)) > 0)
		used += n;
	n = n < 0 ? -errno : (ssize_t)used;
	buf[used] = '\0';
	close(fd);
	return n;
}

int guest_write_file(const char *path, const char *text)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

int guest_load_module(const char *path, const char *params)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

int guest_unload_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}
