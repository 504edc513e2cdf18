// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "command.h"

static void child(int go, int err_fd, char *const argv[])
{
	const char *base = strrchr(argv[0], '/');
	ssize_t n;
	char c;
	int e;

	/* samples taken during the exec itself belong to the command */
	prctl(PR_SET_NAME, base ? base + 1 : argv[0]);
	/* EOF without the go byte: the parent gave up (or died) */
	do
		n = read(go, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	close(go);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

unsigned long long command__spawner_ino(void)
{
	struct stat st;

	return stat("/proc/self/exe", &st) ? 0 : (unsigned long long)st.st_ino;
}

void command__let_go(pid_t pid)
{
	kill(pid, SIGCONT);
}

int command__spawn(struct command *c, char *const argv[])
{
	int go[2], errp[2];

	memset(c, 0, sizeof(*c));
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		return err;
	}
	c->pid = fork();
	if (c->pid == 0) {
		close(go[1]);
		close(errp[0]);
		child(go[0], errp[1], argv);
	}
	close(go[0]);
	close(errp[1]);
	if (c->pid < 0) {
		int err = -errno;

		close(go[1]);
		close(errp[0]);
		return err;
	}
	c->go_fd = go[1];
	c->err_fd = errp[0];
	return 0;
}

int command__start(struct command *c)
{
	ssize_t n;
	int e = 0;

	if (write(c->go_fd, "g", 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	/* EOF (close-on-exec) means the exec worked */
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		waitpid(c->pid, &c->status, 0);
		c->reaped = true;
		return -e;
	}
	return 0;
}

bool command__exited(struct command *c)
{
	if (!c->reaped && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = true;
	return c->reaped;
}

void command__abort(struct command *c)
{
	close(c->go_fd);
	close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	waitpid(c->pid, &c->status, 0);
	c->reaped = true;
}

void command__stop(struct command *c)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (command__exited(c))
		return;
	kill(c->pid, SIGTERM);
	/* stopped at its exec still (hold_at_exec()): a stopped process
	 * takes its SIGTERM once it goes on */
	kill(c->pid, SIGCONT);
	for (int i = 0; i < 200 && !command__exited(c); i++)
		nanosleep(&tick, NULL);
	if (command__exited(c))
		return;
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &c->status, 0);
	c->reaped = true;
}
