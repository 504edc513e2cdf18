// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the integration tests; see harness.h. */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PATH_SLOTS 32
#define MAX_LIVE   64

static char tmpdir[64];
static pid_t live[MAX_LIVE]; /* started and not reaped yet */

/* ---- paths and time ---- */

static const char *next_slot(void)
{
	static char slots[PATH_SLOTS][PATH_MAX];
	static unsigned int next;

	return slots[next++ % PATH_SLOTS];
}

static const char *path_join(const char *dir, const char *name)
{
	char *s = (char *)next_slot();

	if (snprintf(s, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		fail_msg("path too long: '%s/%s'", dir, name);
	return s;
}

const char *h_flamebpf(void)
{
	const char *env = getenv("FLAMEBPF");

	return env && *env ? env : "build/flamebpf";
}

const char *h_workload(const char *name)
{
	const char *env = getenv("WORKLOADS");

	return path_join(env && *env ? env : "build/workloads", name);
}

const char *h_tmpdir(void)
{
	return tmpdir;
}

const char *h_path(const char *name)
{
	return path_join(tmpdir, name);
}

double h_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void h_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- temp dir and cleanup ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void h_init(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
}

int h_group_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/flamebpf-integ-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "cannot create a temp dir: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void live_add(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		if (!live[i]) {
			live[i] = pid;
			return;
		}
	}
}

static void live_del(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == pid)
			live[i] = 0;
}

int h_test_teardown(void **state)
{
	(void)state;
	for (int i = 0; i < MAX_LIVE; i++) {
		if (!live[i])
			continue;
		kill(-live[i], SIGKILL);
		kill(live[i], SIGKILL);
		waitpid(live[i], NULL, 0);
		live[i] = 0;
	}
	return 0;
}

int h_group_teardown(void **state)
{
	h_test_teardown(state);
	if (tmpdir[0] && !getenv("FLAMEBPF_KEEP_TMP"))
		nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* ---- processes ---- */

static void child_exec(const struct h_proc *p, const char *const argv[])
{
	static const int reset[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1 };
	sigset_t none;
	int in, out, err;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], SIG_DFL);
	in = open("/dev/null", O_RDONLY);
	out = open(p->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644); /* no-op on a device */
	err = open(p->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0 || err < 0)
		_exit(126);
	dup2(in, 0);
	dup2(out, 1);
	dup2(err, 2);
	execvp(argv[0], (char *const *)argv);
	dprintf(2, "harness: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

int h_start(struct h_proc *p, const char *const argv[])
{
	return h_start_to(p, argv, NULL);
}

void h_start_workload(struct h_proc *p, const char *const argv[])
{
	assert_int_equal(h_start(p, argv), 0);
	h_sleep(0.2);
}

int h_start_to(struct h_proc *p, const char *const argv[], const char *out_path)
{
	static unsigned int seq;
	pid_t pid;

	memset(p, 0, sizeof(*p));
	if (out_path)
		snprintf(p->out_path, sizeof(p->out_path), "%s", out_path);
	else
		snprintf(p->out_path, sizeof(p->out_path), "%s/proc-%u.out", tmpdir, seq);
	snprintf(p->err_path, sizeof(p->err_path), "%s/proc-%u.err", tmpdir, seq++);
	fflush(stdout);
	fflush(stderr);
	p->started = h_now();
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		child_exec(p, argv);
	setpgid(pid, pid); /* both sides, so no signal can race the child's call */
	p->pid = pid;
	live_add(pid);
	return 0;
}

static int decode_status(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 255;
}

/* Only regular files: reading /dev/full or /dev/zero would never end. */
static char *slurp_or_empty(const char *path)
{
	struct stat st;
	char *s = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? h_slurp(path) : NULL;

	return s ? s : strdup("");
}

/* A run of the ASan+UBSan build that reported an error fails its test,
 * whatever its exit status: on paths that are meant to exit 1 (a write
 * error, a missing capability), the sanitizers' own exit status would pass
 * unseen. */
static void check_sanitizers(const struct h_result *r)
{
	static const char *const reports[] = { "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
					       ": runtime error: " };

	for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++) {
		const char *at = strstr(r->err, reports[i]);

		if (at)
			fail_msg("the sanitizers reported an error:\n%.4000s", at);
	}
}

int h_finish(struct h_proc *p, double timeout, struct h_result *r)
{
	double deadline = p->started + timeout;
	struct rusage ru = { 0 };
	int ws = 0;
	pid_t got;

	memset(r, 0, sizeof(*r));
	while ((got = wait4(p->pid, &ws, WNOHANG, &ru)) == 0 && h_now() < deadline)
		h_sleep(0.005);
	if (got == 0) {
		kill(-p->pid, SIGKILL);
		wait4(p->pid, &ws, 0, &ru);
		r->status = H_TIMED_OUT;
	} else {
		r->status = got < 0 ? 255 : decode_status(ws);
	}
	r->cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		 ru.ru_stime.tv_usec / 1e6;
	r->elapsed = h_now() - p->started;
	/* Whatever it left behind in its group (e.g. a command it started). */
	kill(-p->pid, SIGKILL);
	live_del(p->pid);
	p->reaped = true;
	r->out = slurp_or_empty(p->out_path);
	r->err = slurp_or_empty(p->err_path);
	check_sanitizers(r);
	return 0;
}

int h_run(struct h_result *r, double timeout, const char *const argv[])
{
	struct h_proc p;
	int err = h_start(&p, argv);

	if (err) {
		memset(r, 0, sizeof(*r));
		return err;
	}
	return h_finish(&p, timeout, r);
}

void h_finish_folded(struct h_proc *p, double timeout, struct h_result *r, const char *out,
		     struct h_folded *f)
{
	struct h_result own;

	if (!r)
		r = &own;
	h_finish(p, timeout, r);
	h_assert_status(r, 0);
	if (r == &own)
		h_result_free(r);
	h_folded_must_load(out, f);
}

void h_assert_refused(const char *const *args, size_t nargs, const char *const *tail,
		      const char *said)
{
	const char *argv[32] = { h_flamebpf() };
	struct h_result r;
	size_t n = 1;

	for (size_t k = 0; k < nargs && args[k]; k++)
		argv[n++] = args[k];
	for (size_t k = 0; tail && tail[k]; k++)
		argv[n++] = tail[k];
	assert_true(n < sizeof(argv) / sizeof(argv[0]));
	assert_int_equal(h_run(&r, 30, argv), 0);
	h_assert_status(&r, 2);
	if (!strstr(r.err, said))
		fail_msg("'%s' (after '%s') not said: %s", said, args[0], r.err);
	h_result_free(&r);
}

void h_run_folded(struct h_result *r, double timeout, const char *out, struct h_folded *f,
		  const char *const argv[])
{
	struct h_proc p;

	assert_int_equal(h_start(&p, argv), 0);
	h_finish_folded(&p, timeout, r, out, f);
}

void h_signal(const struct h_proc *p, int sig)
{
	if (!p->reaped)
		kill(p->pid, sig);
}

void h_signal_group(const struct h_proc *p, int sig)
{
	if (!p->reaped)
		kill(-p->pid, sig);
}

void h_stop(struct h_proc *p)
{
	if (p->reaped || p->pid <= 0)
		return;
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
	waitpid(p->pid, NULL, 0);
	live_del(p->pid);
	p->reaped = true;
}

void h_result_free(struct h_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

void h_dump(const struct h_result *r, const char *what)
{
	print_message(
		"--- %s: status %d after %.2f s; stderr:\n%.4000s\n--- stdout (start):\n%.1000s\n",
		what, r->status, r->elapsed, r->err ? r->err : "", r->out ? r->out : "");
}

double h_cpu_time(pid_t pid)
{
	unsigned long long utime, stime;
	char path[64], *text, *s;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	text = h_slurp(path);
	if (!text)
		return -1;
	/* after "PID (COMM) ": state is field 3, utime 14, stime 15 */
	s = strrchr(text, ')');
	n = s ? sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
		       &stime)
	      : 0;
	free(text);
	return n == 2 ? (double)(utime + stime) / sysconf(_SC_CLK_TCK) : -1;
}

static int count_perf_fds(pid_t pid)
{
	char dir[64], link[PATH_MAX], target[256];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		ssize_t len;

		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += strcmp(target, "anon_inode:[perf_event]") == 0;
	}
	closedir(d);
	return n;
}

bool h_wait_attached(pid_t pid, double timeout)
{
	double deadline = h_now() + timeout;
	int n;

	while ((n = count_perf_fds(pid)) == 0 && h_now() < deadline)
		h_sleep(0.02);
	if (n <= 0) {
		print_message("flamebpf opened no perf event in %.0f s; going on\n", timeout);
		return false;
	}
	h_sleep(0.3);
	return true;
}

/* ---- files and text ---- */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t h_list_dir(const char *dir, char **names, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		fail_msg("cannot list '%s': %s", dir, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n < max)
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), by_name);
	return n;
}

void h_write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0 && !fchmod(fileno(f), mode);

	if (f && fclose(f))
		ok = false;
	if (!ok)
		fail_msg("cannot write '%s': %s", path, strerror(errno));
}

char *h_slurp(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	int fd, saved;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		goto err_free;
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger)
				goto err_close;
			buf = bigger;
			cap *= 2;
		}
	}
	if (n < 0)
		goto err_close;
	close(fd);
	buf[len] = '\0';
	return buf;
err_close:
	saved = errno;
	close(fd);
	errno = saved;
err_free:
	saved = errno;
	free(buf);
	errno = saved;
	return NULL;
}

bool h_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

size_t h_count_lines(const char *text)
{
	size_t n = 0;

	for (const char *s = text; *s; s++)
		n += *s == '\n';
	if (*text && text[strlen(text) - 1] != '\n')
		n++;
	return n;
}

/* ---- folded parsing ---- */

__attribute__((format(printf, 4, 5))) static int why_set(char *why, size_t whylen, size_t lineno,
							 const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (lineno)
		snprintf(why, whylen, "line %zu: %s", lineno, msg);
	else
		snprintf(why, whylen, "%s", msg);
	return -1;
}

/* Checks one "STACK COUNT" line (NUL-terminated) and splits it at the last space. */
static int parse_line(char *line, struct h_line *out, size_t lineno, char *why, size_t whylen)
{
	char *space = strrchr(line, ' '), *frame, *end;
	unsigned long long count;

	for (const unsigned char *c = (const unsigned char *)line; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return why_set(why, whylen, lineno, "control byte in '%.200s'", line);
	if (!space || space == line)
		return why_set(why, whylen, lineno, "not 'STACK COUNT': '%.200s'", line);
	if (space[1] < '1' || space[1] > '9')
		return why_set(why, whylen, lineno, "count is not a positive integer: '%.200s'",
			       line);
	errno = 0;
	count = strtoull(space + 1, &end, 10);
	if (*end || errno)
		return why_set(why, whylen, lineno, "count is not a positive integer: '%.200s'",
			       line);
	*space = '\0';
	if (space[-1] == ' ')
		return why_set(why, whylen, lineno, "stack ends in a space: '%.200s'", line);
	for (frame = line;; frame = end + 1) {
		size_t len;

		end = strchrnul(frame, ';');
		len = end - frame;
		if (len == 0 || strspn(frame, " ") >= len)
			return why_set(why, whylen, lineno, "empty frame in '%.200s'", line);
		if (!*end)
			break;
	}
	out->stack = line;
	out->count = count;
	return 0;
}

static int cmp_stack_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int check_unique(const struct h_folded *f, char *why, size_t whylen)
{
	char **v = malloc((f->n + 1) * sizeof(*v));
	int ret = 0;

	if (!v)
		return why_set(why, whylen, 0, "%s", "out of memory");
	for (size_t i = 0; i < f->n; i++)
		v[i] = f->lines[i].stack;
	qsort(v, f->n, sizeof(*v), cmp_stack_ptr);
	for (size_t i = 1; i < f->n && !ret; i++)
		if (strcmp(v[i - 1], v[i]) == 0)
			ret = why_set(why, whylen, 0, "duplicate stack '%.200s'", v[i]);
	free(v);
	return ret;
}

/* Compares two lines as the strings "STACK COUNT", byte by byte. */
static int cmp_line(const struct h_line *p, const struct h_line *q)
{
	char pn[32], qn[32];
	size_t pl = strlen(p->stack), ql = strlen(q->stack);

	snprintf(pn, sizeof(pn), " %llu", p->count);
	snprintf(qn, sizeof(qn), " %llu", q->count);
	for (size_t i = 0;; i++) {
		unsigned char a = i < pl ? p->stack[i] : pn[i - pl];
		unsigned char b = i < ql ? q->stack[i] : qn[i - ql];

		if (a != b || !a)
			return a - b;
	}
}

/* Sorted by stack, or by whole line (as LC_ALL=C sort does): either is fine. */
static int check_sorted(const struct h_folded *f, char *why, size_t whylen)
{
	bool by_stack = true, by_line = true;
	size_t first_bad = 0;

	for (size_t i = 1; i < f->n && (by_stack || by_line); i++) {
		const struct h_line *p = &f->lines[i - 1], *q = &f->lines[i];

		if (by_stack && strcmp(p->stack, q->stack) > 0) {
			by_stack = false;
			first_bad = first_bad ? first_bad : i + 1;
		}
		if (by_line && cmp_line(p, q) > 0) {
			by_line = false;
			first_bad = first_bad ? first_bad : i + 1;
		}
	}
	if (by_stack || by_line)
		return 0;
	return why_set(why, whylen, first_bad, "%s", "lines are not sorted");
}

static int add_line(struct h_folded *f, size_t *cap, const struct h_line *l)
{
	if (f->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct h_line *v = realloc(f->lines, ncap * sizeof(*v));

		if (!v)
			return -1;
		f->lines = v;
		*cap = ncap;
	}
	f->lines[f->n++] = *l;
	f->total += l->count;
	return 0;
}

/* Parses the lines of TEXT, without the sorted and unique checks. */
static int parse_lines(const char *text, struct h_folded *f, char *why, size_t whylen)
{
	size_t cap = 0, lineno = 0;
	char *line, *nl;

	memset(f, 0, sizeof(*f));
	f->buf = strdup(text);
	if (!f->buf)
		return why_set(why, whylen, 0, "%s", "out of memory");
	for (line = f->buf; *line; line = nl + 1) {
		struct h_line l;

		lineno++;
		nl = strchr(line, '\n');
		if (!nl)
			return why_set(why, whylen, lineno, "no newline at the end: '%.200s'",
				       line);
		*nl = '\0';
		if (parse_line(line, &l, lineno, why, whylen))
			return -1;
		if (add_line(f, &cap, &l))
			return why_set(why, whylen, lineno, "%s", "out of memory");
	}
	return 0;
}

int h_folded_parse(const char *text, struct h_folded *f, char *why, size_t whylen)
{
	if (parse_lines(text, f, why, whylen))
		return -1;
	if (check_unique(f, why, whylen) || check_sorted(f, why, whylen))
		return -1;
	return 0;
}

int h_flamechart_parse(const char *text, struct h_folded *f, char *why, size_t whylen)
{
	return parse_lines(text, f, why, whylen);
}

void h_folded_free(struct h_folded *f)
{
	free(f->lines);
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

typedef int (*parse_fn)(const char *text, struct h_folded *f, char *why, size_t whylen);

/* Parses TEXT with PARSE, failing the test with the reason; KIND names the format. */
static void must_parse(parse_fn parse, const char *kind, const char *text, const char *what,
		       struct h_folded *f)
{
	char why[512];

	if (parse(text, f, why, sizeof(why)) == 0)
		return;
	print_message("--- %s (start):\n%.3000s\n", what, text);
	h_folded_free(f);
	fail_msg("%s is not valid %s output: %s", what, kind, why);
}

static void must_load(parse_fn parse, const char *kind, const char *path, struct h_folded *f)
{
	char *text = h_slurp(path);

	if (!text)
		fail_msg("cannot read '%s': %s", path, strerror(errno));
	must_parse(parse, kind, text, path, f);
	free(text);
}

void h_folded_must_parse(const char *text, const char *what, struct h_folded *f)
{
	must_parse(h_folded_parse, "folded", text, what, f);
}

void h_folded_must_load(const char *path, struct h_folded *f)
{
	must_load(h_folded_parse, "folded", path, f);
}

void h_flamechart_must_parse(const char *text, const char *what, struct h_folded *f)
{
	must_parse(h_flamechart_parse, "flamechart", text, what, f);
}

void h_flamechart_must_load(const char *path, struct h_folded *f)
{
	must_load(h_flamechart_parse, "flamechart", path, f);
}

void h_folded_dump(const struct h_folded *f, size_t max)
{
	print_message("--- %zu lines, %llu samples:\n", f->n, f->total);
	for (size_t i = 0; i < f->n && i < max; i++)
		print_message("%.300s %llu\n", f->lines[i].stack, f->lines[i].count);
}

/* ---- stacks ---- */

unsigned long long h_sum(const struct h_folded *f, h_pred pred, const void *arg)
{
	unsigned long long sum = 0;

	for (size_t i = 0; i < f->n; i++)
		if (pred(f->lines[i].stack, arg))
			sum += f->lines[i].count;
	return sum;
}

unsigned long long h_count_of(const struct h_folded *f, const char *stack)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->lines[i].stack, stack))
			return f->lines[i].count;
	return 0;
}

size_t h_depth(const char *stack)
{
	size_t d = 0;

	for (const char *s = stack; (s = strchr(s, ';')); s++)
		d++;
	return d;
}

static bool pred_frame(const char *stack, const void *frame)
{
	return h_has_frame(stack, frame);
}

unsigned long long h_sum_frame(const struct h_folded *f, const char *frame)
{
	return h_sum(f, pred_frame, frame);
}

bool h_has_seq(const char *stack, const char *seq)
{
	size_t len = strlen(seq);

	for (const char *s = stack; (s = strstr(s, seq)); s++) {
		bool starts = s == stack || s[-1] == ';';
		bool ends = s[len] == '\0' || s[len] == ';';

		if (starts && ends)
			return true;
	}
	return false;
}

bool h_has_frame(const char *stack, const char *frame)
{
	return !strchr(frame, ';') && h_has_seq(stack, frame);
}

bool h_is_kernel_frame(const char *frame, size_t len)
{
	return len >= 4 && memcmp(frame + len - 4, "_[k]", 4) == 0;
}

const char *h_root(const char *stack, char *buf, size_t len)
{
	size_t n = strcspn(stack, ";");

	if (n >= len)
		n = len - 1;
	memcpy(buf, stack, n);
	buf[n] = '\0';
	return buf;
}

static int parse_id(const char *s, const char *end, long *v)
{
	char *stop;

	if (s == end || *s < '1' || *s > '9')
		return -1;
	errno = 0;
	*v = strtol(s, &stop, 10);
	return stop != end || errno ? -1 : 0;
}

int h_root_ids(const char *root, char *comm, size_t len, long *pid, long *tid)
{
	const char *dash = strrchr(root, '-'), *slash, *end = root + strlen(root);
	size_t n;

	if (!dash || dash == root)
		return -1;
	slash = strchr(dash, '/');
	*tid = 0;
	if (parse_id(dash + 1, slash ? slash : end, pid))
		return -1;
	if (slash && parse_id(slash + 1, end, tid))
		return -1;
	n = dash - root < (long)len ? (size_t)(dash - root) : len - 1;
	memcpy(comm, root, n);
	comm[n] = '\0';
	return 0;
}

/* ---- flamebpf's stderr ---- */

static const char *next_line(const char *text)
{
	const char *nl = strchr(text, '\n');

	return nl ? nl + 1 : NULL;
}

/*
 * Whether a line of TEXT matches FMT whole: its NCONV conversions, then the
 * %n that ends FMT, whose pointer END is also the last of the arguments.
 */
__attribute__((format(scanf, 4, 5))) static bool scan_line(const char *text, int nconv, int *end,
							   const char *fmt, ...)
{
	for (const char *line = text; line; line = next_line(line)) {
		va_list ap;
		int n;

		*end = 0;
		va_start(ap, fmt);
		n = vsscanf(line, fmt, ap);
		va_end(ap);
		if (n == nconv && *end > 0)
			return true;
	}
	return false;
}

bool h_parse_summary(const char *err, struct h_summary *s)
{
	int end;

	return scan_line(err, 4, &end,
			 "flamebpf: %llu samples, %llu processes, %llu stacks in %lf s at %n",
			 &s->samples, &s->processes, &s->stacks, &s->secs, &end);
}

bool h_parse_trace_summary(const char *err, struct h_trace_summary *s)
{
	int end;

	return scan_line(err, 6, &end,
			 "flamebpf: %llu calls of %llu functions in %llu binaries, "
			 "%llu processes, %llu call paths in %lf s%n",
			 &s->calls, &s->functions, &s->binaries, &s->processes, &s->paths, &s->secs,
			 &end);
}

struct h_trace_summary h_must_trace_summary(const struct h_result *r)
{
	struct h_trace_summary s;

	if (!h_parse_trace_summary(r->err, &s)) {
		h_dump(r, "flamebpf");
		fail_msg("no 'N calls of F functions ...' summary on stderr");
	}
	return s;
}

void h_expect_calls(const struct h_result *r, unsigned long long want)
{
	struct h_trace_summary s = h_must_trace_summary(r);

	print_message("calls: %llu, expected %llu\n", s.calls, want);
	if (s.calls != want) {
		h_dump(r, "flamebpf");
		fail_msg("the summary counts %llu calls, expected exactly %llu", s.calls, want);
	}
}

void h_nest_times(const char *out, long long *outer, long long *inner)
{
	if (sscanf(out, "outer %lld inner %lld", outer, inner) != 2)
		fail_msg("tracee printed '%.200s', not 'outer NS inner NS'", out);
}

const char *h_find_line(const char *text, const char *prefix, char *buf, size_t len)
{
	size_t plen = strlen(prefix);

	for (const char *line = text; line; line = next_line(line)) {
		size_t n = strcspn(line, "\n");

		if (strncmp(line, prefix, plen))
			continue;
		if (n >= len)
			n = len - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
		return buf;
	}
	return NULL;
}

long long h_lost(const char *err, const char *what)
{
	char line[4096];
	const char *item;

	if (!h_find_line(err, "flamebpf: lost: ", line, sizeof(line)))
		return -1;
	/* items are "N TEXT", separated by ", " */
	for (item = line + strlen("flamebpf: lost: "); item; item = strstr(item, ", ")) {
		unsigned long long n;
		int off = 0;

		item += item[0] == ',' ? 2 : 0;
		if (sscanf(item, "%llu %n", &n, &off) == 1 && off > 0 &&
		    !strncmp(item + off, what, strlen(what)))
			return (long long)n;
	}
	return 0;
}

long long h_unfinished(const char *err)
{
	char line[4096];
	unsigned long long n;

	if (!h_find_line(err, "flamebpf: unfinished: ", line, sizeof(line)))
		return 0;
	return sscanf(line + strlen("flamebpf: unfinished: "), "%llu calls", &n) == 1 ? (long long)n
										      : -1;
}

long long h_offcpu_lost(const char *err)
{
	static const char *const why[] = {
		"blocks off the CPU (map full)",
		"blocks off the CPU (no task storage",
		"blocks off the CPU (their switch away not traced)",
		"blocks off the CPU counted as on it",
	};
	long long n = 0, k;

	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++)
		if ((k = h_lost(err, why[i])) > 0)
			n += k;
	return n;
}

/* Most blocks a wait can lose and still be checked: each is a tenth of it. */
#define OFFCPU_LOST_MAX 3

double h_offcpu_floor(long long lost)
{
	if (lost > OFFCPU_LOST_MAX)
		fail_msg("%lld blocks off the CPU lost: too many to check the times by", lost);
	return 0.9 - (double)lost * 0.12;
}

bool h_has_line(const char *text, const char *line)
{
	size_t len = strlen(line);

	for (const char *s = text; (s = strstr(s, line)); s++)
		if ((s == text || s[-1] == '\n') && (s[len] == '\n' || s[len] == '\0'))
			return true;
	return false;
}

/* ---- uprobe fallbacks ---- */

void h_classic_uprobes(void)
{
	setenv("FLAMEBPF_CLASSIC_UPROBES", "1", 1);
}

int h_classic_teardown(void **state)
{
	unsetenv("FLAMEBPF_CLASSIC_UPROBES");
	return h_test_teardown(state);
}

void h_expect_classic(const struct h_result *r)
{
	if (h_has_line(r->err, "flamebpf: classic uprobes, one per probe: "
			       "FLAMEBPF_CLASSIC_UPROBES=1 asked for them"))
		return;
	h_dump(r, "flamebpf");
	fail_msg("the run did not say it used classic uprobes");
}

/* ---- privileges ---- */

static bool permission_error(const char *err)
{
	static const char *const words[] = { "permission", "not permitted", "privilege",
					     "CAP_",	   "must be root",  "as root" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasestr(err, words[i]))
			return true;
	return false;
}

/* Returns NULL when BPF works, else why not (static storage). */
static const char *bpf_unusable(void)
{
	static char reason[512];
	struct h_result r;

	if (geteuid() != 0)
		return "not root (real BPF tests need root or CAP_BPF+CAP_PERFMON)";
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return "/sys/kernel/btf/vmlinux is missing: the kernel has no BTF";
	if (access(h_flamebpf(), X_OK))
		return NULL; /* let the test fail on the missing binary, not skip */
	if (h_run(&r, 30,
		  H_ARGV(h_flamebpf(), "--sample", "99", "-d", "0.2", "-o",
			 h_path("require-bpf.folded"), "--", "true")))
		return "cannot fork";
	if (r.status != 0 && permission_error(r.err)) {
		snprintf(reason, sizeof(reason), "flamebpf cannot use BPF here: %.*s",
			 (int)strcspn(r.err, "\n"), r.err);
		h_result_free(&r);
		return reason;
	}
	h_result_free(&r);
	return NULL;
}

void h_require_bpf(void)
{
	static int checked;
	static const char *reason;

	if (!checked) {
		reason = bpf_unusable();
		checked = 1;
	}
	if (access(h_flamebpf(), X_OK))
		fail_msg("'%s' is not an executable: run 'make build/flamebpf'", h_flamebpf());
	if (reason) {
		print_message("SKIP: %s\n", reason);
		skip();
	}
}

void h_require_go(void)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX];

	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");

		if (snprintf(dir, sizeof(dir), "%.*s/go", (int)n, p) < (int)sizeof(dir) &&
		    !access(dir, X_OK))
			return;
		p += n + (p[n] == ':');
	}
	print_message("SKIP: no 'go' on PATH (golang-go): go tool pprof cannot read the file\n");
	skip();
}

/* `go tool pprof FLAGS... FILE` (at most 8 flags), which must exit 0: its
 * report, which the caller frees. */
static char *go_pprof(const char *const *flags, size_t nflags, const char *file)
{
	char home[4096], cache[4096], gopath[4096];
	const char *argv[24] = { "env",		home,	    cache, gopath, "GOTOOLCHAIN=local",
				 "GOPROXY=off", "GOFLAGS=", "go",  "tool", "pprof" };
	size_t n = 10;
	struct h_result r;
	char *text;

	snprintf(home, sizeof(home), "HOME=%s", h_tmpdir());
	snprintf(cache, sizeof(cache), "GOCACHE=%s", h_path("gocache"));
	snprintf(gopath, sizeof(gopath), "GOPATH=%s", h_path("gopath"));
	for (size_t i = 0; i < nflags && i < 8; i++)
		argv[n++] = flags[i];
	argv[n++] = file;
	argv[n] = NULL;
	assert_int_equal(h_run(&r, 120, argv), 0);
	h_assert_status(&r, 0);
	text = r.out;
	r.out = NULL;
	h_result_free(&r);
	return text;
}

char *h_pprof_top(const char *file, const char *index, const char *unit, bool all_nodes)
{
	char si[64], u[64];
	const char *flags[8];
	size_t n = 0;

	snprintf(si, sizeof(si), "-sample_index=%s", index ? index : "");
	snprintf(u, sizeof(u), "-unit=%s", unit);
	if (index)
		flags[n++] = si;
	flags[n++] = u;
	if (all_nodes) {
		flags[n++] = "-nodefraction=0";
		flags[n++] = "-nodecount=1000";
	}
	flags[n++] = "-top";
	return go_pprof(flags, n, file);
}

char *h_pprof_tags(const char *file)
{
	static const char *const flags[] = { "-tags" };

	return go_pprof(flags, 1, file);
}
