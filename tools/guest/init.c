// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the pvmap test guests: mount the pseudo file systems, load
 * pvmap.ko, run one program (the tests by default) and end QEMU with its
 * status through isa-debug-exit. QEMU then exits with (status << 1) | 1, so
 * an exit of 0 (reboot, panic, triple fault) can never read as success.
 *
 * Command line (all optional):
 *   pvtest.run=PROG          program to run (default /bin/pvmap-tests)
 *   pvtest.only=TEST[,TEST]  run these tests alone: -t TEST to the harness's
 *                            suites (without it: -F alone), --only TEST to others
 *   pvtest.modparams=a=1,b=2 module parameters (commas become spaces)
 *   pvtest.noload=1          do not load the module
 *   pvtest.interactive=1     stay up after the program; no shell
 */
#define _GNU_SOURCE
#include "guest.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define ISA_DEBUG_EXIT_PORT	0xf4
#define KMEMLEAK		"/sys/kernel/debug/kmemleak"
#define EXIT_PASS		0
#define EXIT_FAIL		1
#define SYSLOG_ACTION_CONSOLE_LEVEL	8
/* Only KERN_EMERG (lockups, the panic path raises the level itself) stays direct. */
#define CONSOLE_LEVEL_DIRECT	1

static pid_t kmsg_forwarder = -1;
static int kmsg_forwarder_stop = -1;	/* closed: print what is logged, exit */

static void mount_or_warn(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		printf("# init: mount %s on %s: %s\n", type, dir, strerror(errno));
}

/*
 * Print one /dev/kmsg record ("PRIO,SEQ,USEC,FLAGS;text", text escaped as
 * \xHH) as the console would, "[    7.028167] text", in one write().
 */
static void kmsg_print(const char *rec, int max_level)
{
	unsigned long long usec;
	char out[8192], *o = out;
	const char *text;
	unsigned int prio;

	text = strchr(rec, ';');
	if (!text || sscanf(rec, "%u,%*u,%llu", &prio, &usec) != 2 ||
	    (int)(prio & 7) >= max_level)
		return;
	o += snprintf(o, 64, "[%5llu.%06llu] ", usec / 1000000, usec % 1000000);
	for (text++; *text && *text != '\n' && o < out + sizeof(out) - 2; text++) {
		unsigned int c;

		if (text[0] == '\\' && text[1] == 'x' && sscanf(text + 2, "%2x", &c) == 1) {
			*o++ = (char)c;
			text += 3;
		} else {
			*o++ = *text;
		}
	}
	*o++ = '\n';
	if (write(STDOUT_FILENO, out, o - out) < 0)
		_exit(1);
}

/*
 * The kernel's console writes straight to the UART, between the characters
 * the tty is sending, so a kernel message (a late "clocksource: Switched
 * to clocksource tsc") could split a test's KTAP line and the host lose
 * it. Kernel messages therefore reach the console through this child: it
 * writes each as one write() to the tty, which the tty serialises with the
 * programs' own writes, whole lines against whole lines. The console level
 * it applies is the one the kernel was booted with (loglevel=).
 */
static void kmsg_forward_start(void)
{
	char level[16] = "7";
	int fd, stop[2], max_level;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || pipe2(stop, O_CLOEXEC)) {
		printf("# init: /dev/kmsg: %s; kernel messages stay direct\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	guest_read_file("/proc/sys/kernel/printk", level, sizeof(level));
	max_level = atoi(level);
	/* From here on: a message in between is printed twice, never lost. */
	lseek(fd, 0, SEEK_END);
	fflush(stdout);
	kmsg_forwarder = fork();
	if (kmsg_forwarder == 0) {
		struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN },
					 { .fd = stop[0], .events = POLLIN } };
		char rec[8192];

		close(stop[1]);
		for (;;) {
			ssize_t n = read(fd, rec, sizeof(rec) - 1);

			if (n > 0) {
				rec[n] = '\0';
				kmsg_print(rec, max_level);
			} else if (n < 0 && errno == EPIPE) {	/* overwritten unread */
				static const char lost[] = "# init: kernel messages lost\n";

				if (write(STDOUT_FILENO, lost, sizeof(lost) - 1) < 0)
					_exit(1);
			} else if (pfd[1].revents) {
				_exit(0);	/* asked to stop, and all is printed */
			} else if (poll(pfd, 2, -1) < 0 && errno != EINTR) {
				_exit(1);
			}
		}
	}
	close(fd);
	close(stop[0]);
	if (kmsg_forwarder < 0) {
		printf("# init: fork: %s; kernel messages stay direct\n", strerror(errno));
		close(stop[1]);
		return;
	}
	kmsg_forwarder_stop = stop[1];
	if (klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, CONSOLE_LEVEL_DIRECT))
		printf("# init: console level: %s\n", strerror(errno));
}

/* Let the forwarder print everything logged so far, then stop it. */
static void kmsg_forward_stop(void)
{
	if (kmsg_forwarder <= 0)
		return;
	close(kmsg_forwarder_stop);
	waitpid(kmsg_forwarder, NULL, 0);
	kmsg_forwarder = -1;
}

static __attribute__((noreturn)) void end_qemu(int status)
{
	kmsg_forward_stop();
	fflush(stdout);
	/* The console's last lines may still be in the tty: let them out first. */
	tcdrain(STDOUT_FILENO);
	sync();
	if (ioperm(ISA_DEBUG_EXIT_PORT, 4, 1) == 0)
		outb(status, ISA_DEBUG_EXIT_PORT);
	printf("# init: isa-debug-exit failed (%s); powering off\n", strerror(errno));
	fflush(stdout);
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

/* The host answers handshakes on the console: do not echo its lines back. */
static void console_quiet(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &t) == 0) {
		t.c_lflag &= ~(ECHO | ECHONL);
		tcsetattr(STDIN_FILENO, TCSANOW, &t);
	}
}

/* The programs on the kselftest harness (tests/guest/harness.h). */
static bool harness_suite(const char *prog)
{
	return !strcmp(prog, "/bin/pvmap-tests") || !strcmp(prog, "/bin/pvmap-drm-tests");
}

#define MAX_ONLY	32	/* init says "more than 32 tests" past it */

/*
 * @only: TEST, or TEST,TEST,...: the harness's -t TEST for each (these tests
 * alone, in the suite's order); without it a suite leaves out its fixture
 * "alone" (-F alone), the tests that break the guest. Another program gets
 * --only TEST. @only is cut at its commas.
 */
static int run_program(const char *prog, char *only)
{
	char *argv[2 + 2 * MAX_ONLY + 1] = { (char *)prog };
	int status, argc = 1;
	char *name, *rest = only;
	pid_t pid;

	while (only[0] && argc < 1 + 2 * MAX_ONLY && (name = strsep(&rest, ","))) {
		if (!name[0])
			continue;
		argv[argc++] = harness_suite(prog) ? "-t" : "--only";
		argv[argc++] = name;
	}
	if (only[0] && ((rest && rest[0]) || argc == 1)) {
		printf("# init: pvtest.only names %s\n",
		       argc == 1 ? "no test" : "more than 32 tests");
		return -1;
	}
	if (argc == 1 && harness_suite(prog)) {
		argv[1] = "-F";
		argv[2] = "alone";
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(prog, argv);
		printf("# init: exec %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (WIFSIGNALED(status)) {
		printf("# init: %s killed by signal %d\n", prog, WTERMSIG(status));
		return -1;
	}
	return WEXITSTATUS(status);
}

/*
 * Ask kmemleak for leaks. It reports only objects older than 5 s, so wait
 * that long first; the console check fails the run on its report line.
 */
static void kmemleak_report(void)
{
	static char report[16384];
	int leaks = 0, ret;
	long n;

	ret = guest_write_file(KMEMLEAK, "clear");
	if (ret == -ENOENT)
		return;		/* not built in: the host says SKIP */
	if (ret) {
		printf("# kmemleak: clear failed: %s\n", strerror(-ret));
		return;
	}
	sleep(6);
	ret = guest_write_file(KMEMLEAK, "scan");
	n = ret ? ret : guest_read_file(KMEMLEAK, report, sizeof(report));
	if (n == -EPERM) {
		printf("# kmemleak: off at boot (kmemleak=off)\n");
		return;		/* the host says SKIP */
	}
	if (n < 0) {
		printf("# kmemleak: scan failed: %s\n", strerror((int)-n));
		return;
	}
	for (char *p = report; (p = strstr(p, "unreferenced object")); p++)
		leaks++;
	if (leaks)
		printf("# kmemleak: %d new suspected memory leaks\n%s", leaks, report);
	else
		printf("# kmemleak: no leaks\n");
}

static void interactive(void)
{
	char line[256];

	printf("pvmap guest: interactive console, no shell. QMP is on the host.\n"
	       "commands: run PROG [TEST] | exit\n");
	for (;;) {
		char prog[128] = "", test[128] = "";

		printf("pvmap> ");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			end_qemu(EXIT_PASS);
		if (sscanf(line, "run %127s %127s", prog, test) >= 1)
			printf("# exit status %d\n", run_program(prog, test));
		else if (strncmp(line, "exit", 4) == 0)
			end_qemu(EXIT_PASS);
		else if (line[0] != '\n')
			printf("unknown command\n");
	}
}

int main(void)
{
	char prog[128] = "/bin/pvmap-tests", only[768] = "", params[512] = "";
	char flag[8];
	int ret;

	mount_or_warn("proc", "/proc", "proc");
	mount_or_warn("sysfs", "/sys", "sysfs");
	mount_or_warn("devtmpfs", "/dev", "devtmpfs");
	mount_or_warn("debugfs", "/sys/kernel/debug", "debugfs");
	mount_or_warn("tracefs", "/sys/kernel/tracing", "tracefs");
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The harness logs (TH_LOG, SKIP) on stderr: the console, as stdout is. */
	if (fcntl(STDERR_FILENO, F_GETFD) < 0)
		dup2(STDOUT_FILENO, STDERR_FILENO);
	kmsg_forward_start();

	guest_cmdline_get("run", prog, sizeof(prog));
	guest_cmdline_get("only", only, sizeof(only));
	guest_module_params(params, sizeof(params));

	if (!guest_cmdline_get("noload", flag, sizeof(flag)) || strcmp(flag, "1")) {
		ret = guest_load_module(GUEST_MODULE_PATH, params);
		if (ret)
			printf("# init: cannot load %s: %s\n", GUEST_MODULE_PATH,
			       strerror(-ret));
	}

	if (guest_cmdline_get("interactive", flag, sizeof(flag)) && !strcmp(flag, "1")) {
		interactive();
	}

	console_quiet();
	if (strlen(only) == sizeof(only) - 1) {	/* cut short: not the tests asked for */
		printf("# init: pvtest.only is longer than %zu characters\n", sizeof(only) - 1);
		ret = -1;
	} else {
		ret = run_program(prog, only);
	}
	printf("# init: %s exited with %d\n", prog, ret);
	if (harness_suite(prog))
		kmemleak_report();
	end_qemu(ret == 0 ? EXIT_PASS : EXIT_FAIL);
}
