/* Unit tests of the pusher's delivery rules (src/cli/push.c, push_spool.c)
 * against tests/tools/push_receiver.py on localhost: a backend down for
 * ten pushes then up gets all ten in order; a spool over its size drops
 * the oldest and counts them; a restart sends what the last run spooled;
 * a 4xx is counted and not retried, a 5xx is retried. Each profile's
 * interval is its own (from = 60 s x its number), which says its order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/push.h"
#include "profile/profile.h"

#define RECEIVER "tests/tools/push_receiver.py"
#define T0	 1700000000ULL /* seconds since the epoch of push 0 */
#define NS	 1000000000ULL

struct env {
	char dir[64];	 /* this test's files */
	char got[128];	 /* the receiver's uploads */
	char spool[128]; /* the pusher's spool */
	char url[64];
	int port;
	pid_t receiver;
};

static struct profile *profile_of(unsigned int n)
{
	struct profile_meta m = { .cmdline = "",
				  .event = "cpu-clock",
				  .kernel = "",
				  .host = "",
				  .losses = "",
				  .freq = 99,
				  .secs = 60 };
	struct stack_owner who = { .pid = 1, .tid = 1, .comm = "init", .tcomm = "init" };
	struct profile *p = profile__new(UNIT_SAMPLES);
	uint32_t f[2];

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__findnew_frame(p, "main", "app", FRAME_USER, &f[0]), 0);
	assert_int_equal(profile__findnew_frame(p, "work", "app", FRAME_USER, &f[1]), 0);
	assert_int_equal(profile__add_stack(p, &who, f, 2, 10 + n), 0);
	return p;
}

/* A port nobody listens on (for now): the kernel's pick, released. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void start_receiver(struct env *e, int status)
{
	char port_file[160], port[16], code[16];
	struct timespec ts = { 0, 20000000 };

	snprintf(port_file, sizeof(port_file), "%s/port", e->dir);
	snprintf(port, sizeof(port), "%d", e->port);
	snprintf(code, sizeof(code), "%d", status);
	if (access("/usr/bin/python3", X_OK)) {
		printf("skipped: no /usr/bin/python3 to run the receiver\n");
		skip();
	}
	unlink(port_file);
	e->receiver = fork();
	assert_true(e->receiver >= 0);
	if (!e->receiver) {
		execl("/usr/bin/python3", "python3", RECEIVER, e->got, port_file, "--port", port,
		      "--status", code, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && access(port_file, F_OK); i++)
		nanosleep(&ts, NULL);
	assert_int_equal(access(port_file, F_OK), 0);
}

static void stop_receiver(struct env *e)
{
	if (e->receiver > 0) {
		kill(e->receiver, SIGKILL);
		waitpid(e->receiver, NULL, 0);
	}
	e->receiver = 0;
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	snprintf(e->dir, sizeof(e->dir), "/tmp/flamebpf-push.XXXXXX");
	if (!mkdtemp(e->dir))
		return -1;
	snprintf(e->got, sizeof(e->got), "%s/got", e->dir);
	snprintf(e->spool, sizeof(e->spool), "%s/spool", e->dir);
	mkdir(e->got, 0700);
	e->port = free_port();
	snprintf(e->url, sizeof(e->url), "http://127.0.0.1:%d", e->port);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	char cmd[128];

	stop_receiver(e);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->dir);
	if (system(cmd))
		return -1;
	free(e);
	return 0;
}

static struct pusher *new_pusher(struct env *e, uint64_t spool_size)
{
	struct push_opts o = { .url = e->url, .spool_dir = e->spool, .spool_size = spool_size };
	char err[PUSH_ERR_LEN];
	struct pusher *p;

	if (pusher__new(&p, &o, err, sizeof(err)))
		fail_msg("pusher__new: %s", err);
	return p;
}

static int push_nth(struct pusher *p, unsigned int n)
{
	struct profile *prof = profile_of(n);
	int err = pusher__push(p, prof, (T0 + 60 * n) * NS, (T0 + 60 * (n + 1)) * NS);

	profile__free(prof);
	return err;
}

/* How many uploads arrived, each one's push number in *order. */
static size_t arrived(const struct env *e, unsigned int *order, size_t max)
{
	char path[192], buf[1024], *from;
	size_t n;

	for (n = 0; n < max; n++) {
		FILE *f;
		size_t len;

		snprintf(path, sizeof(path), "%s/%zu.json", e->got, n);
		f = fopen(path, "r");
		if (!f)
			break;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = '\0';
		from = strstr(buf, "\"from\": \"");
		assert_non_null(from);
		order[n] = (unsigned int)((strtoull(from + 9, NULL, 10) - T0) / 60);
	}
	return n;
}

static void test_down_then_up(void **state)
{
	struct env *e = *state;
	struct pusher *p = new_pusher(e, 0);
	unsigned int order[16];

	for (unsigned int i = 0; i < 10; i++)
		assert_int_equal(push_nth(p, i), -EAGAIN);
	assert_int_equal(pusher__pending(p), 10);
	assert_int_equal(pusher__stats(p)->spooled, 10);
	assert_int_equal(pusher__stats(p)->sent, 0);
	start_receiver(e, 200);
	/* the next push sends the ten first, then itself */
	assert_int_equal(push_nth(p, 10), 0);
	assert_int_equal(pusher__pending(p), 0);
	assert_int_equal(pusher__stats(p)->sent, 11);
	assert_int_equal(pusher__stats(p)->dropped, 0);
	assert_int_equal(arrived(e, order, 16), 11);
	for (unsigned int i = 0; i < 11; i++)
		assert_int_equal(order[i], i);
	pusher__free(p);
}

static void test_restart_sends_spool(void **state)
{
	struct env *e = *state;
	struct pusher *p = new_pusher(e, 0);
	unsigned int order[8];

	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(push_nth(p, i), -EAGAIN);
	pusher__free(p);
	start_receiver(e, 200);
	p = new_pusher(e, 0);
	assert_int_equal(pusher__pending(p), 3);
	assert_int_equal(pusher__flush(p), 0);
	assert_int_equal(arrived(e, order, 8), 3);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(order[i], i);
	pusher__free(p);
}

static void test_spool_bound(void **state)
{
	struct env *e = *state;
	struct pusher *p = new_pusher(e, 1 << 20);
	unsigned int order[8];
	char path[192];
	struct stat st;

	/* the size of one upload on disk (all five are alike), then a bound
	 * of three and a half */
	assert_int_equal(push_nth(p, 0), -EAGAIN);
	pusher__free(p);
	snprintf(path, sizeof(path), "%s/%016x.push", e->spool, 0);
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	p = new_pusher(e, 3 * (uint64_t)st.st_size + st.st_size / 2);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(push_nth(p, i), -EAGAIN);
	assert_int_equal(pusher__pending(p), 3);
	assert_int_equal(pusher__stats(p)->dropped, 2);
	/* each a few bytes apart: its numbers gzip differently */
	assert_in_range(pusher__stats(p)->dropped_bytes, 2 * (uint64_t)st.st_size - 16,
			2 * (uint64_t)st.st_size + 16);
	start_receiver(e, 200);
	assert_int_equal(pusher__flush(p), 0);
	assert_int_equal(arrived(e, order, 8), 3);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(order[i], i + 2);
	pusher__free(p);
}

static void test_4xx_not_retried(void **state)
{
	struct env *e = *state;
	struct pusher *p = new_pusher(e, 0);
	unsigned int order[4];

	start_receiver(e, 400);
	assert_int_equal(push_nth(p, 0), 0);
	assert_int_equal(pusher__stats(p)->rejected, 1);
	assert_int_equal(pusher__stats(p)->sent, 0);
	assert_int_equal(pusher__pending(p), 0);
	assert_int_equal(pusher__flush(p), 0);
	assert_int_equal(arrived(e, order, 4), 1);
	pusher__free(p);
}

static void test_5xx_retried(void **state)
{
	struct env *e = *state;
	struct pusher *p = new_pusher(e, 0);
	unsigned int order[4];

	start_receiver(e, 503);
	assert_int_equal(push_nth(p, 0), -EAGAIN);
	assert_int_equal(pusher__pending(p), 1);
	stop_receiver(e);
	start_receiver(e, 200);
	assert_int_equal(pusher__flush(p), 0);
	assert_int_equal(pusher__stats(p)->sent, 1);
	/* the second receiver counts from 0 again: its one upload */
	assert_int_equal(arrived(e, order, 4), 1);
	pusher__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_down_then_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_sends_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_4xx_not_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_5xx_retried, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
