// SPDX-License-Identifier: GPL-2.0
/*
 * spawner: starts children a profiler must follow.  It forks one child that
 * spins in child_spin for SECONDS without exec, and, when PROGRAM is given,
 * forks another that execs PROGRAM with its ARGs; then waits for both.  The
 * parent itself only sleeps in wait.
 *
 * usage: spawner SECONDS [PROGRAM [ARG...]]
 * Exits 0 when every child exited 0, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Kept out of line and never tail-called, so each keeps its own stack frame. */
#ifdef __clang__
#define NOINLINE __attribute__((noinline, disable_tail_calls))
#else
#define NOINLINE __attribute__((noinline, optimize("no-optimize-sibling-calls")))
#endif

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE void spin_chunk(void)
{
	for (volatile unsigned long i = 0; i < 100003; i++)
		sink += i;
}

NOINLINE void child_spin(double seconds)
{
	double deadline = now() + seconds;

	do
		spin_chunk();
	while (now() < deadline);
}

static pid_t start_spinner(double seconds)
{
	pid_t pid = fork();

	if (pid == 0) {
		child_spin(seconds);
		_exit(0);
	}
	return pid;
}

static pid_t start_program(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	double seconds;
	int status, failed = 0;
	pid_t pid;
	char *end;

	if (argc < 2 || (seconds = strtod(argv[1], &end)) < 0 || end == argv[1] || *end) {
		fprintf(stderr, "usage: spawner SECONDS [PROGRAM [ARG...]]\n");
		return 2;
	}
	if (argc > 2 && start_program(argv + 2) < 0) {
		perror("spawner: fork");
		return 1;
	}
	if (start_spinner(seconds) < 0) {
		perror("spawner: fork");
		return 1;
	}
	while ((pid = wait(&status)) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	return failed;
}
