/* /proc/PID/maps parsing. The text comes from another process's address space
 * layout (paths are chosen by whoever created the files), so every field is
 * checked and nothing is assumed about line lengths.
 */
#include "util/cursor.h"
#include "proc_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAPS_READ_CHUNK (64 * 1024)
/* Far above any real maps file (vm.max_map_count lines of a few hundred bytes). */
#define MAPS_MAX_SIZE (1024UL * 1024 * 1024)

static int take_dec(struct cursor *c, uint64_t *v)
{
	const char *start = c->p;
	uint64_t x = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned int d = (unsigned int)(*c->p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
		c->p++;
	}
	if (c->p == start)
		return -EINVAL;
	*v = x;
	return 0;
}

static int take_char(struct cursor *c, char want)
{
	if (c->p >= c->end || *c->p != want)
		return -EINVAL;
	c->p++;
	return 0;
}

static int take_perms(struct cursor *c, char perms[5])
{
	static const char *const allowed[4] = { "r-", "w-", "x-", "ps" };
	int i;

	if (c->end - c->p < 4)
		return -EINVAL;
	for (i = 0; i < 4; i++) {
		if (!c->p[i] || !strchr(allowed[i], c->p[i]))
			return -EINVAL;
		perms[i] = c->p[i];
	}
	perms[4] = '\0';
	c->p += 4;
	return 0;
}

static int take_dev(struct cursor *c, struct map_entry *e)
{
	uint64_t major, minor;

	if (cursor__hex(c, &major) || take_char(c, ':') || cursor__hex(c, &minor))
		return -EINVAL;
	if (major > UINT32_MAX || minor > UINT32_MAX)
		return -EINVAL;
	e->dev_major = (uint32_t)major;
	e->dev_minor = (uint32_t)minor;
	return 0;
}

/* "start-end perms offset major:minor inode". */
static int take_fields(struct cursor *c, struct map_entry *e)
{
	if (cursor__hex(c, &e->start) || take_char(c, '-') || cursor__hex(c, &e->end))
		return -EINVAL;
	if (e->start >= e->end)
		return -EINVAL;
	if (take_char(c, ' ') || take_perms(c, e->perms))
		return -EINVAL;
	if (take_char(c, ' ') || cursor__hex(c, &e->offset))
		return -EINVAL;
	if (take_char(c, ' ') || take_dev(c, e))
		return -EINVAL;
	if (take_char(c, ' ') || take_dec(c, &e->inode))
		return -EINVAL;
	return 0;
}

/* The kernel pads the path to a column, so the padding cannot be told apart
 * from leading spaces of a file name: those are lost. Inner and trailing
 * spaces (and " (deleted)") are kept; newlines in names arrive escaped.
 */
static int parse_span(const char *line, size_t len, struct map_entry *e)
{
	struct cursor c = { line, line + len };
	struct map_entry tmp = { 0 };

	if (take_fields(&c, &tmp))
		return -EINVAL;
	if (c.p < c.end && *c.p != ' ')
		return -EINVAL;
	while (c.p < c.end && *c.p == ' ')
		c.p++;
	if (memchr(c.p, '\0', (size_t)(c.end - c.p)))
		return -EINVAL;
	tmp.path = strndup(c.p, (size_t)(c.end - c.p));
	if (!tmp.path)
		return -ENOMEM;
	*e = tmp;
	return 0;
}

int proc_maps__parse_line(const char *line, struct map_entry *e)
{
	return parse_span(line, strcspn(line, "\n"), e);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct map_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int append_entry(struct proc_maps *m, size_t *cap, const struct map_entry *e)
{
	if (m->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct map_entry *v = reallocarray(m->v, ncap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		*cap = ncap;
	}
	m->v[m->n++] = *e;
	return 0;
}

/* Parses one line and appends it when executable. */
static int add_line(struct proc_maps *m, size_t *cap, const char *line, size_t len)
{
	struct map_entry e;
	int err;

	err = parse_span(line, len, &e);
	if (err)
		return err;
	if (e.perms[2] != 'x') {
		free(e.path);
		return 0;
	}
	err = append_entry(m, cap, &e);
	if (err)
		free(e.path);
	return err;
}

int proc_maps__parse(const char *text, size_t len, struct proc_maps *out)
{
	struct proc_maps m = { 0 };
	const char *p = text, *end;
	size_t cap = 0;
	int err;

	*out = (struct proc_maps){ 0 };
	if (!len)
		return 0;
	end = text + len;
	/* Blank lines are skipped; any other line must parse. */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t line_len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (line_len) {
			err = add_line(&m, &cap, p, line_len);
			if (err)
				goto free_maps;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (m.n) {
		struct map_entry *v = reallocarray(m.v, m.n, sizeof(*m.v));

		/* kept for the process's life: not the doubling's spare half */
		if (v)
			m.v = v;
		qsort(m.v, m.n, sizeof(*m.v), entry_cmp);
	}
	*out = m;
	return 0;

free_maps:
	proc_maps__free(&m);
	return err;
}

/* Makes room for at least half a chunk more in *buf. */
static int grow(char **buf, size_t *cap, size_t used)
{
	char *nb;

	if (*cap - used >= MAPS_READ_CHUNK / 2)
		return 0;
	if (*cap >= MAPS_MAX_SIZE)
		return -EFBIG;
	nb = realloc(*buf, *cap * 2);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap *= 2;
	return 0;
}

/* Reads all of fd into a NUL-terminated heap buffer: /proc files report size 0,
 * so the size is only known at end of file.
 */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = MAPS_READ_CHUNK, n = 0;
	char *b = malloc(cap);
	ssize_t r;
	int err;

	if (!b)
		return -ENOMEM;
	for (;;) {
		err = grow(&b, &cap, n);
		if (err)
			goto free_buf;
		r = read(fd, b + n, cap - n - 1);
		if (r == 0)
			break;
		if (r < 0 && errno != EINTR) {
			err = -errno;
			goto free_buf;
		}
		if (r > 0)
			n += (size_t)r;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;

free_buf:
	free(b);
	return err;
}

int proc_maps__read(pid_t pid, struct proc_maps *out)
{
	char path[64];
	size_t len = 0;
	char *text = NULL;
	int fd, err;

	*out = (struct proc_maps){ 0 };
	if (pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	err = read_all(fd, &text, &len);
	close(fd);
	if (err)
		return err;
	err = proc_maps__parse(text, len, out);
	free(text);
	return err;
}

const struct map_entry *proc_maps__find(const struct proc_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	/* Find the first mapping starting above addr; its predecessor may hold it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= m->v[lo - 1].end)
		return NULL;
	return &m->v[lo - 1];
}

void proc_maps__free(struct proc_maps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}
