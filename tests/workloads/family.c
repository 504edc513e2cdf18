// SPDX-License-Identifier: GPL-2.0
/*
 * family: a parent and one child with different lives, for tests of process
 * lifetimes and of which processes a profiler follows.  The parent forks and
 * execs PROGRAM with its ARGs, spins in parent_spin for SPIN seconds beside
 * it, waits for it, then stays AFTER seconds more, asleep in parent_linger,
 * and exits with the child's exit status.  With -w the parent first spins in
 * parent_spin until it gets SIGUSR1, and only then starts the child.
 *
 *   family 0 1.5 cpu_tree 0.7       a child that exits long before its parent
 *   family -w 1 0 cpu_tree 1        a child started when the test says so
 *
 * usage: family [-w] SPIN AFTER PROGRAM [ARG...]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

NOINLINE void parent_chunk(void)
{
	spin(100003);
}

NOINLINE void parent_spin(double seconds)
{
	double deadline = now() + seconds;

	while (now() < deadline)
		parent_chunk();
}

NOINLINE void parent_linger(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* SIGUSR1 is blocked from the start, so it waits, pending, until looked at. */
static void spin_until_usr1(void)
{
	sigset_t pending;
	int sig;

	do {
		parent_spin(0.01);
		sigpending(&pending);
	} while (!sigismember(&pending, SIGUSR1));
	sigemptyset(&pending);
	sigaddset(&pending, SIGUSR1);
	sigwait(&pending, &sig);
}

static int parse_seconds(const char *s, double *v)
{
	return parse_num(s, v) || *v > 3600 ? -1 : 0;
}

static pid_t start_child(char **argv, const sigset_t *mask)
{
	pid_t pid = fork();

	if (pid == 0) {
		sigprocmask(SIG_SETMASK, mask, NULL);
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	sigset_t usr1, old;
	double spin, after;
	int wait_usr1 = argc > 1 && strcmp(argv[1], "-w") == 0, status;
	char **args = argv + 1 + wait_usr1;
	pid_t pid;

	if (argc - 1 - wait_usr1 < 3 || parse_seconds(args[0], &spin) ||
	    parse_seconds(args[1], &after)) {
		fprintf(stderr, "usage: family [-w] SPIN AFTER PROGRAM [ARG...]\n");
		return 2;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	if (wait_usr1)
		spin_until_usr1();
	pid = start_child(args + 2, &old);
	if (pid < 0) {
		perror("family: fork");
		return 1;
	}
	parent_spin(spin);
	if (waitpid(pid, &status, 0) != pid) {
		perror("family: waitpid");
		return 1;
	}
	parent_linger(after);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
