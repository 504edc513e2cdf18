// SPDX-License-Identifier: GPL-2.0
/*
 * Clock and process helper for tools/bench.sh. Times are CLOCK_MONOTONIC
 * seconds with nanosecond digits.
 *
 *   bench_marker [now]
 *	print the time (as the profiled command: when it started)
 *   bench_marker run -o FILE [-i SECS] -- COMMAND [ARG...]
 *	run COMMAND; with -i send it SIGINT SECS after the launch; then write
 *	"launch T", "sigint T" (with -i), "exit T", "status N" (the exit code,
 *	or 128 + the signal), "maxrss_kib N" (its peak RSS) and "cpu_s T" (its
 *	user + system CPU time) to FILE
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct run_opts {
	const char *out;
	double int_after; /* <= 0: no SIGINT */
	char **argv;
};

static struct timespec mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

static void put_time(FILE *f, const char *key, struct timespec ts)
{
	if (key)
		fprintf(f, "%s ", key);
	fprintf(f, "%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
}

static double tv_secs(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_marker [now]\n"
			"       bench_marker run -o FILE [-i SECS] -- COMMAND [ARG...]\n");
	return 2;
}

static int parse_run(int argc, char **argv, struct run_opts *ro)
{
	char *end;
	int c;

	while ((c = getopt(argc, argv, "+o:i:")) != -1) {
		switch (c) {
		case 'o':
			ro->out = optarg;
			break;
		case 'i':
			errno = 0;
			ro->int_after = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(ro->int_after > 0))
				return -EINVAL;
			break;
		default:
			return -EINVAL;
		}
	}
	if (!ro->out || optind >= argc)
		return -EINVAL;
	ro->argv = argv + optind;
	return 0;
}

static void sleep_until(struct timespec t0, double secs)
{
	struct timespec t = t0;

	t.tv_sec += (time_t)secs;
	t.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

static pid_t spawn(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "bench_marker: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int run(int argc, char **argv)
{
	struct run_opts ro = {};
	struct timespec launch, sigint = {}, done;
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *f;

	if (parse_run(argc, argv, &ro))
		return usage();
	f = fopen(ro.out, "we"); /* not inherited by COMMAND */
	if (!f) {
		fprintf(stderr, "bench_marker: cannot open '%s': %s\n", ro.out, strerror(errno));
		return 1;
	}
	launch = mono_now();
	pid = spawn(ro.argv);
	if (pid < 0) {
		fprintf(stderr, "bench_marker: cannot fork: %s\n", strerror(errno));
		fclose(f);
		return 1;
	}
	if (ro.int_after > 0) {
		sleep_until(launch, ro.int_after);
		sigint = mono_now();
		kill(pid, SIGINT);
	}
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	done = mono_now();
	put_time(f, "launch", launch);
	if (ro.int_after > 0)
		put_time(f, "sigint", sigint);
	put_time(f, "exit", done);
	fprintf(f, "status %d\n",
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fprintf(f, "maxrss_kib %ld\n", ru.ru_maxrss);
	fprintf(f, "cpu_s %.6f\n", tv_secs(ru.ru_utime) + tv_secs(ru.ru_stime));
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "now"))) {
		put_time(stdout, NULL, mono_now());
		return fflush(stdout) ? 1 : 0;
	}
	if (!strcmp(argv[1], "run"))
		return run(argc - 1, argv + 1);
	return usage();
}
