// SPDX-License-Identifier: GPL-2.0
/*
 * The spool on disk. A file holds one header line, "flamebpf-push 1
 * CONTENT_TYPE FORM_FIELD ENCODING URL" (FORM_FIELD, ENCODING "-" for
 * none), then the body
 * as it is sent. Entries are kept in memory as (sequence, size), oldest
 * first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "push_spool.h"

#define MAGIC "flamebpf-push 1"

struct entry {
	uint64_t seq, size;
};

struct spool {
	char *dir;
	uint64_t max, bytes, next_seq;
	struct entry *e; /* oldest first, from e[head] */
	size_t head, n, cap;
};

static void entry_path(const struct spool *s, uint64_t seq, char *path, size_t len)
{
	snprintf(path, len, "%s/%016" PRIx64 ".push", s->dir, seq);
}

static int push_entry(struct spool *s, uint64_t seq, uint64_t size)
{
	if (s->head + s->n == s->cap && s->head) {
		memmove(s->e, s->e + s->head, s->n * sizeof(*s->e));
		s->head = 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct entry *v = realloc(s->e, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->e = v;
		s->cap = cap;
	}
	s->e[s->head + s->n++] = (struct entry){ seq, size };
	s->bytes += size;
	if (seq >= s->next_seq)
		s->next_seq = seq + 1;
	return 0;
}

static int by_seq(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The uploads a previous run left, in order. */
static int scan(struct spool *s)
{
	DIR *d = opendir(s->dir);
	struct dirent *de;
	struct stat st;
	char path[4096];
	uint64_t seq;
	int n, err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (sscanf(de->d_name, "%16" SCNx64 ".push%n", &seq, &n) != 1 || de->d_name[n] ||
		    strlen(de->d_name) != 21)
			continue;
		entry_path(s, seq, path, sizeof(path));
		if (!stat(path, &st))
			err = push_entry(s, seq, (uint64_t)st.st_size);
	}
	closedir(d);
	if (s->n)
		qsort(s->e, s->n, sizeof(*s->e), by_seq);
	return err;
}

int spool__open(struct spool **out, const char *dir, uint64_t max_bytes, char *err, size_t errlen)
{
	struct spool *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->max = max_bytes;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "cannot make the spool directory '%s': %s", dir,
			 strerror(-ret));
		spool__free(s, false);
		return ret;
	}
	ret = scan(s);
	if (ret) {
		snprintf(err, errlen, "cannot read the spool directory '%s': %s", dir,
			 strerror(-ret));
		spool__free(s, false);
		return ret;
	}
	*out = s;
	return 0;
}

static int write_file(const char *path, const struct spool_item *it)
{
	FILE *f = fopen(path, "wxe");
	int err = 0;

	if (!f)
		return -errno;
	if (fprintf(f, MAGIC " %s %s %s %s\n", it->content_type,
		    it->form_field ? it->form_field : "-", it->encoding ? it->encoding : "-",
		    it->url) < 0 ||
	    fwrite(it->body, 1, it->len, f) != it->len)
		err = -errno ?: -EIO;
	if (fflush(f) || fsync(fileno(f)))
		err = err ?: -errno;
	if (fclose(f))
		err = err ?: -errno;
	return err;
}

int spool__add(struct spool *s, const struct spool_item *it, uint64_t *dropped,
	       uint64_t *dropped_bytes)
{
	char tmp[4096], path[4096];
	struct stat st;
	int err;

	*dropped = *dropped_bytes = 0;
	entry_path(s, s->next_seq, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s/.new.push", s->dir);
	unlink(tmp);
	err = write_file(tmp, it);
	if (!err && (stat(tmp, &st) || rename(tmp, path)))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	err = push_entry(s, s->next_seq, (uint64_t)st.st_size);
	while (s->n && s->bytes > s->max) {
		(*dropped)++;
		*dropped_bytes += s->e[s->head].size;
		spool__pop(s);
	}
	return err;
}

/* The header's fields, each a copy. */
/* A copy of a header's field; "-" is none (NULL). */
static int field(const char *text, char **out)
{
	*out = strcmp(text, "-") ? strdup(text) : NULL;
	return strcmp(text, "-") && !*out ? -ENOMEM : 0;
}

static int parse_header(char *line, struct spool_item *it)
{
	char type[256], form[256], enc[64], url[4096];
	int err;

	if (sscanf(line, MAGIC " %255s %255s %63s %4095s", type, form, enc, url) != 4)
		return -EBADMSG;
	err = field(type, &it->content_type);
	err = err ?: field(form, &it->form_field);
	err = err ?: field(enc, &it->encoding);
	return err ?: field(url, &it->url);
}

static int read_item(FILE *f, struct spool_item *it)
{
	char line[4096 + 600];
	long start, end;

	if (!fgets(line, sizeof(line), f) || parse_header(line, it))
		return -EBADMSG;
	start = ftell(f);
	if (fseek(f, 0, SEEK_END) || (end = ftell(f)) < start || fseek(f, start, SEEK_SET))
		return -EIO;
	it->len = (size_t)(end - start);
	it->body = malloc(it->len ? it->len : 1);
	if (!it->body)
		return -ENOMEM;
	return fread(it->body, 1, it->len, f) == it->len ? 0 : -EIO;
}

int spool__peek(struct spool *s, struct spool_item *it)
{
	char path[4096];
	FILE *f;
	int err;

	memset(it, 0, sizeof(*it));
	if (!s->n)
		return -ENOENT;
	entry_path(s, s->e[s->head].seq, path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = read_item(f, it);
	fclose(f);
	if (err)
		spool_item__free(it);
	return err;
}

void spool__pop(struct spool *s)
{
	char path[4096];

	if (!s->n)
		return;
	entry_path(s, s->e[s->head].seq, path, sizeof(path));
	unlink(path);
	s->bytes -= s->e[s->head].size;
	s->head++;
	s->n--;
}

size_t spool__count(const struct spool *s)
{
	return s->n;
}

uint64_t spool__bytes(const struct spool *s)
{
	return s->bytes;
}

const char *spool__dir(const struct spool *s)
{
	return s->dir;
}

void spool_item__free(struct spool_item *it)
{
	free(it->url);
	free(it->content_type);
	free(it->form_field);
	free(it->encoding);
	free(it->body);
	memset(it, 0, sizeof(*it));
}

void spool__free(struct spool *s, bool rm_empty)
{
	if (!s)
		return;
	if (rm_empty && !s->n)
		rmdir(s->dir);
	free(s->dir);
	free(s->e);
	free(s);
}
