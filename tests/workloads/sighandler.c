// SPDX-License-Identifier: GPL-2.0
/*
 * sighandler: main spins in spin_inner, called by spin_outer, for SECONDS;
 * a SIGALRM every 10 ms runs on_alarm, which spends about 3 ms in
 * handler_work. The kernel's signal frame lies between the handler and the
 * code it interrupted: a stack in handler_work goes on through the
 * sigreturn trampoline (glibc's __restore_rt) to spin_inner and main.
 *
 * usage: sighandler SECONDS
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "workload.h"

NOINLINE static void handler_work(void)
{
	spin(4000000);
}

NOINLINE static void on_alarm(int sig)
{
	(void)sig;
	handler_work();
}

NOINLINE static void spin_inner(void)
{
	spin(10000);
}

NOINLINE static void spin_outer(double end)
{
	while (now() < end)
		spin_inner();
}

int main(int argc, char **argv)
{
	struct itimerval every = { { 0, 10000 }, { 0, 10000 } };
	struct sigaction sa;
	double secs;

	if (argc != 2 || parse_num(argv[1], &secs)) {
		fprintf(stderr, "usage: sighandler SECONDS\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &every, NULL))
		return 1;
	spin_outer(now() + secs);
	printf("done\n");
	return 0;
}
