/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A suite of feature programs in one binary. kselftest's harness keeps its
 * list of tests in one file's globals, so each feature file is a harness
 * program of its own, its main() renamed NAME_main() and the harness's globals
 * made its own (the Makefile: -Dmain=, objcopy --localize-symbol); the suite's
 * main() (here, for the file that defines FEATURE_LIST, the path of its
 * feature_list.h) runs them in that list's order, FEATURE(NAME) each (NAME.c),
 * with run_feature(), then says how many ran (suite_end()). Each prints its
 * own TAP document; the host joins them into one suite (tools/host/pvmaplib/
 * ktap.py's join()).
 */
#ifndef PVMAP_GUEST_RUN_FEATURES_H
#define PVMAP_GUEST_RUN_FEATURES_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * @feature_main(@argc, @argv) in a child (it exits through the harness): 0 when
 * it exited 0, else 1.
 */
static inline int run_feature(int (*feature_main)(int, char **), int argc, char **argv)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		exit(feature_main(argc, argv));
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

/*
 * After the last feature: how many documents make the suite whole, so that the
 * host can tell a suite that stopped between two programs from a whole one
 * (tools/host/pvmaplib/ktap.py's "pvmap-suite" attribute).
 */
static inline void suite_end(int features)
{
	printf("# pvmap-suite: features=%d\n", features);
	fflush(stdout);
}

/* The suite's main(), in the file that defines FEATURE_LIST, its feature_list.h. */
#ifdef FEATURE_LIST
#define FEATURE(name) int name##_main(int argc, char **argv);
#include FEATURE_LIST
#undef FEATURE

int main(int argc, char **argv)
{
	int failed = 0, features = 0;

#define FEATURE(name) failed |= run_feature(name##_main, argc, argv), features++;
#include FEATURE_LIST
#undef FEATURE
	suite_end(features);
	return failed;
}
#endif

#endif /* PVMAP_GUEST_RUN_FEATURES_H */
