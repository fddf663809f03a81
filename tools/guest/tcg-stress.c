// SPDX-License-Identifier: GPL-2.0
/*
 * tcg-stress [SECONDS]: the reproducer of QEMU 7.2's TCG fault on i386
 * guests (tools/host/tcg-cmpxchg8b-repro), pvmap not involved: a console-output
 * storm (serial interrupts) beside an openat storm (SLUB's unlocked
 * cmpxchg8b in every kmem_cache_alloc), on every vCPU, for SECONDS (60).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;
	pid_t kids[4];
	int i;

	for (i = 0; i < 4; i++) {
		kids[i] = fork();
		if (kids[i])
			continue;
		time_t end = time(NULL) + secs;
		unsigned long n = 0;
		int k = open("/dev/kmsg", O_WRONLY);

		while (time(NULL) < end) {
			if (i == 0) {
				printf("# tcg-stress %lu: console line to keep the UART busy ..................\n", n);
				fflush(stdout);
			} else if (i == 1 && k >= 0) {
				dprintf(k, "tcg-stress kmsg %lu ...........................................\n", n);
			} else {
				int fd = openat(AT_FDCWD, "/proc/self/status", O_RDONLY);

				if (fd >= 0)
					close(fd);
				openat(AT_FDCWD, "/nonexistent/path/for/getname", O_RDONLY);
			}
			n++;
		}
		_exit(0);
	}
	for (i = 0; i < 4; i++)
		waitpid(kids[i], NULL, 0);
	printf("# tcg-stress: done\n");
	return 0;
}
