// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jvm_perfmap.h"

/* Exit statuses of the child before jcmd runs. */
#define NO_USER 125
#define NO_EXEC 127

/* JDK/lib/server/libjvm.so -> JDK/bin/jcmd, when it is there. */
static int jdk_jcmd(const char *libjvm, char *buf, size_t len)
{
	char *p;

	if (snprintf(buf, len, "%s", libjvm) >= (int)len)
		return -ENAMETOOLONG;
	for (int up = 0; up < 3; up++) {
		p = strrchr(buf, '/');
		if (!p)
			return -ENOENT;
		*p = '\0';
	}
	if (strlen(buf) + sizeof("/bin/jcmd") > len)
		return -ENAMETOOLONG;
	strcat(buf, "/bin/jcmd");
	return access(buf, X_OK) ? -errno : 0;
}

/* The first jcmd on PATH (or the default path). */
static int path_jcmd(char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path && *path ? path : "/usr/bin:/bin"), *dir, *save = NULL;
	int err = -ENOENT;

	if (!copy)
		return -ENOMEM;
	for (dir = strtok_r(copy, ":", &save); dir && err; dir = strtok_r(NULL, ":", &save))
		if (snprintf(buf, len, "%s/jcmd", dir) < (int)len && !access(buf, X_OK))
			err = 0;
	free(copy);
	return err;
}

static void child(const char *jcmd, pid_t pid, const struct stat *owner, int out)
{
	char spid[16], *argv[] = { (char *)jcmd, spid, "Compiler.perfmap", NULL };
	int null = open("/dev/null", O_RDONLY);

	snprintf(spid, sizeof(spid), "%d", (int)pid);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(NO_EXEC);
	signal(SIGPIPE, SIG_DFL);
	/* its user may not reach our working directory */
	if (chdir("/") || (getuid() != owner->st_uid && setgroups(0, NULL)) ||
	    setgid(owner->st_gid) || setuid(owner->st_uid))
		_exit(NO_USER);
	execv(jcmd, argv);
	_exit(NO_EXEC);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* The next line from *at, without the blanks around it; false at the end. */
static bool next_line(const char **at, const char *end, const char **p, const char **e)
{
	const char *nl;

	if (*at >= end)
		return false;
	nl = memchr(*at, '\n', (size_t)(end - *at));
	*p = *at;
	*e = nl ? nl : end;
	*at = nl ? nl + 1 : end;
	while (*p < *e && (**p == ' ' || **p == '\t'))
		(*p)++;
	while (*e > *p && ((*e)[-1] == '\r' || (*e)[-1] == ' '))
		(*e)--;
	return true;
}

static bool says_failure(const char *p, const char *e)
{
	return memmem(p, (size_t)(e - p), "Exception", 9) || memmem(p, (size_t)(e - p), "Error", 5);
}

/* The line of what jcmd printed that says what went wrong: the first that
 * names an exception or error (a stack trace follows it), else the last
 * that is not empty. */
static void keep_said(struct jvm_ask *a, const char *out, size_t n)
{
	const char *at = out, *p, *e, *pick = NULL, *pick_end = NULL;

	while (next_line(&at, out + n, &p, &e)) {
		if (e > p && says_failure(p, e)) {
			pick = p;
			pick_end = e;
			break;
		}
		if (e > p) {
			pick = p;
			pick_end = e;
		}
	}
	snprintf(a->said, sizeof(a->said), "%.*s", pick ? (int)(pick_end - pick) : 0,
		 pick ? pick : "");
	for (char *c = a->said; *c; c++)
		if ((unsigned char)*c < ' ')
			*c = ' ';
}

/* Reads what jcmd prints (the first 4 KiB) until it exits or time is up;
 * then reaps it, killed if need be. Returns 0 or -ETIMEDOUT. */
static int wait_jcmd(pid_t child_pid, int out, int timeout_ms, struct jvm_ask *a)
{
	char buf[4096], sink[256];
	size_t n = 0;
	double end = now() + timeout_ms / 1e3;
	struct pollfd pfd = { out, POLLIN, 0 };
	int err = 0;

	for (;;) {
		double left = end - now();
		bool full = n == sizeof(buf);
		ssize_t r;

		if (left <= 0) {
			err = -ETIMEDOUT;
			kill(child_pid, SIGKILL);
			break;
		}
		if (poll(&pfd, 1, (int)(left * 1e3) + 1) <= 0)
			continue;
		r = read(out, full ? sink : buf + n, full ? sizeof(sink) : sizeof(buf) - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* EOF: it exited (or closed its output) */
		n += full ? 0 : (size_t)r;
	}
	while (waitpid(child_pid, &a->status, 0) < 0 && errno == EINTR)
		;
	keep_said(a, buf, n);
	return err;
}

static int status_err(const struct jvm_ask *a)
{
	if (!WIFEXITED(a->status))
		return -ECHILD;
	if (WEXITSTATUS(a->status) == NO_USER)
		return -EPERM;
	if (WEXITSTATUS(a->status) == NO_EXEC)
		return -ENOENT;
	return WEXITSTATUS(a->status) ? -ECHILD : 0;
}

int jvm_perfmap__ask(pid_t pid, const char *libjvm, int timeout_ms, struct jvm_ask *a)
{
	char proc[32];
	struct stat owner;
	double start = now();
	int out[2], err;
	pid_t c;

	memset(a, 0, sizeof(*a));
	if ((!libjvm || jdk_jcmd(libjvm, a->jcmd, sizeof(a->jcmd))) &&
	    path_jcmd(a->jcmd, sizeof(a->jcmd)))
		return -ENOENT;
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if (stat(proc, &owner))
		return -errno;
	if (pipe2(out, O_CLOEXEC))
		return -errno;
	c = fork();
	if (c == 0)
		child(a->jcmd, pid, &owner, out[1]);
	err = c < 0 ? -errno : 0;
	close(out[1]);
	if (!err)
		err = wait_jcmd(c, out[0], timeout_ms, a);
	close(out[0]);
	a->secs = now() - start;
	return err ? err : status_err(a);
}
