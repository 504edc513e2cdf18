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
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

NOINLINE void spin_chunk(void)
{
	spin(100003);
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

	if (argc < 2 || parse_num(argv[1], &seconds)) {
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
