// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "name_pattern.h"
#include "strbuf.h"

/* Fields that change every second: a pattern without one would name two
 * intervals alike. */
static bool is_seconds_field(char c)
{
	return strchr("SsTrcX+", c) != NULL;
}

/* The conversion character of the field at p ('%'), past %E and %O. */
static char field_at(const char *p, size_t *len)
{
	*len = (p[1] == 'E' || p[1] == 'O') && p[2] ? 3 : 2;
	return p[*len - 1];
}

int name_pattern__check(const char *pattern, char *why, size_t len)
{
	const char *slash = strrchr(pattern, '/'), *base = slash ? slash + 1 : pattern;
	bool seconds = false;
	size_t n;

	if (memchr(pattern, '%', base - pattern)) {
		snprintf(why, len, "'%s': time fields go in the file name, not its directory",
			 pattern);
		return -EINVAL;
	}
	for (const char *p = base; (p = strchr(p, '%')); p += n) {
		char c = field_at(p, &n);

		if (!c || c == 'D' || c == 'n' || c == 't') {
			snprintf(why, len, "'%s': '%%%c' is not a field of a file name", pattern,
				 c ? c : ' ');
			return -EINVAL;
		}
		seconds |= is_seconds_field(c);
	}
	if (!seconds) {
		snprintf(why, len,
			 "'%s' has no field of seconds (%%S, %%s, %%T, ...): each interval "
			 "would overwrite the last",
			 pattern);
		return -EINVAL;
	}
	return 0;
}

/* s with every "{host}" replaced by host, '%' doubled in it (for strftime)
 * when fmt. */
static char *with_host(const char *s, size_t len, const char *host, bool fmt)
{
	struct strbuf b = {};
	size_t hl = strlen(NAME_PATTERN_HOST);

	for (size_t i = 0; i < len;) {
		if (!strncmp(s + i, NAME_PATTERN_HOST, hl) && i + hl <= len) {
			for (const char *h = host; *h; h++) {
				if (*h == '%' && fmt)
					strbuf__addc(&b, '%');
				strbuf__addc(&b, *h == '/' ? '_' : *h);
			}
			i += hl;
			continue;
		}
		strbuf__addc(&b, s[i++]);
	}
	if (!b.s)
		return strdup("");
	return b.s;
}

/* What a field's text can be, as an extended regex. */
static const char *field_re(char c)
{
	switch (c) {
	case 'Y':
	case 'G':
		return "[0-9]{4,}";
	case 'm':
	case 'd':
	case 'H':
	case 'M':
	case 'S':
	case 'y':
	case 'C':
	case 'I':
	case 'U':
	case 'W':
	case 'V':
	case 'g':
		return "[0-9]{2}";
	case 'j':
		return "[0-9]{3}";
	case 'u':
	case 'w':
		return "[0-9]";
	case 's':
		return "[0-9]+";
	case 'e':
	case 'k':
	case 'l':
		return "[ 0-9][0-9]";
	case 'T':
		return "[0-9]{2}:[0-9]{2}:[0-9]{2}";
	case 'F':
		return "[0-9]{4,}-[0-9]{2}-[0-9]{2}";
	case '%':
		return "%";
	default:
		return "[^/]+";
	}
}

static void add_literal(struct strbuf *b, char c)
{
	if (strchr(".[]()*+?{}|^$\\", c))
		strbuf__addc(b, '\\');
	strbuf__addc(b, c);
}

/* base as a regex of the names it makes; the counter of make() may come
 * before the extension. Also finds where the literal tail and its
 * extension begin. */
static int make_re(struct name_pattern *np)
{
	const char *b = np->base, *tail = b;
	struct strbuf re = {};
	size_t n;
	int err;

	for (const char *p = b; (p = strchr(p, '%')); p += n) {
		field_at(p, &n);
		tail = p + n;
	}
	np->tail = strlen(tail);
	np->ext = strchr(tail, '.') ? (size_t)(strchr(tail, '.') - tail) : np->tail;
	strbuf__addf(&re, "^");
	for (const char *p = b; *p;) {
		if (p == tail + np->ext)
			strbuf__addf(&re, "(-[0-9]+)?");
		if (*p == '%') {
			strbuf__addf(&re, "%s", field_re(field_at(p, &n)));
			p += n;
			continue;
		}
		add_literal(&re, *p++);
	}
	if (!*(tail + np->ext))
		strbuf__addf(&re, "(-[0-9]+)?");
	strbuf__addf(&re, "$");
	if (!re.s)
		return -ENOMEM;
	err = regcomp(&np->re, re.s, REG_EXTENDED | REG_NOSUB);
	strbuf__free(&re);
	if (err)
		return -EINVAL;
	np->have_re = true;
	return 0;
}

int name_pattern__init(struct name_pattern *np, const char *pattern, const char *host)
{
	const char *slash = strrchr(pattern, '/');

	memset(np, 0, sizeof(*np));
	np->dir = slash ? with_host(pattern, slash == pattern ? 1 : (size_t)(slash - pattern), host,
				    false)
			: strdup(".");
	np->base = with_host(slash ? slash + 1 : pattern, strlen(slash ? slash + 1 : pattern), host,
			     true);
	if (!np->dir || !np->base) {
		name_pattern__free(np);
		return -ENOMEM;
	}
	return make_re(np);
}

int name_pattern__make(const struct name_pattern *np, time_t t, char *buf, size_t len)
{
	char name[NAME_MAX + 1];
	struct tm tm;
	size_t n, at;

	localtime_r(&t, &tm);
	/* the pattern is the user's, checked by name_pattern__check */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	n = strftime(name, sizeof(name), np->base, &tm);
#pragma GCC diagnostic pop
	if (!n)
		return -ENAMETOOLONG;
	at = n - (np->tail - np->ext);
	for (unsigned int i = 1; i < 10000; i++) {
		int w = i == 1 ? snprintf(buf, len, "%s/%s", np->dir, name)
			       : snprintf(buf, len, "%s/%.*s-%u%s", np->dir, (int)at, name, i,
					  name + at);

		if (w < 0 || (size_t)w >= len)
			return -ENAMETOOLONG;
		if (access(buf, F_OK) && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}

struct found {
	char *name;
	struct timespec mtime;
	uint64_t size;
};

/* Newest first: by modification time, then by name (a counter, a later
 * second). */
static int newest_first(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
	return strcmp(y->name, x->name);
}

/* The regular files of dir that np names. Returns 0 or -errno. */
static int find(const struct name_pattern *np, int dfd, struct found **out, size_t *n)
{
	DIR *d = fdopendir(dup(dfd));
	struct dirent *e;
	size_t cap = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct found f;
		struct stat st;
		void *grown;

		if (regexec(&np->re, e->d_name, 0, NULL, 0) ||
		    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		f = (struct found){ strdup(e->d_name), st.st_mtim, (uint64_t)st.st_size };
		if (*n == cap && (grown = realloc(*out, (cap = cap ? 2 * cap : 64) * sizeof(f))))
			*out = grown;
		if (!f.name || *n == cap) {
			free(f.name);
			closedir(d);
			return -ENOMEM;
		}
		(*out)[(*n)++] = f;
	}
	closedir(d);
	return 0;
}

void name_pattern__rotate(const struct name_pattern *np, size_t keep, uint64_t keep_size,
			  struct rotation *r)
{
	int dfd = open(np->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct found *f = NULL;
	uint64_t sum = 0;
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	if (dfd < 0 || (r->err = find(np, dfd, &f, &n))) {
		r->err = r->err ?: -errno;
		goto out;
	}
	qsort(f, n, sizeof(*f), newest_first);
	for (size_t i = 0; i < n; i++) {
		sum += f[i].size;
		if (!i || ((!keep || i < keep) && (!keep_size || sum <= keep_size)))
			continue;
		if (unlinkat(dfd, f[i].name, 0) && errno != ENOENT) {
			r->err = r->err ?: -errno;
			continue;
		}
		r->removed++;
		r->bytes += f[i].size;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(f[i].name);
	free(f);
	if (dfd >= 0)
		close(dfd);
}

void name_pattern__free(struct name_pattern *np)
{
	if (np->have_re)
		regfree(&np->re);
	free(np->dir);
	free(np->base);
	memset(np, 0, sizeof(*np));
}
