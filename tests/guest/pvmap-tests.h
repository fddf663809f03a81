/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every feature file of pvmap-tests (tests_*.c) includes: the
 * harness with the tests' result codes (result.h) and the shared helpers
 * (suite.h).
 */
#ifndef PVMAP_GUEST_TESTS_H
#define PVMAP_GUEST_TESTS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define _FILE_OFFSET_BITS 64
#include "guest.h"
#include "result.h"
#include "suite.h"

#include <dirent.h>
#include <elf.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/pvmap_kind.h>
#include <uapi/pvmap_partial.h>
#include <uapi/pvmap_pattern.h>
#include <uapi/pvmap.h>

#endif /* PVMAP_GUEST_TESTS_H */
