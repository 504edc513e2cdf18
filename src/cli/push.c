// SPDX-License-Identifier: GPL-2.0
/*
 * The pusher: encodes each profile for its backend, posts it, and keeps
 * in the spool what the backend could not take.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats/out_otlp.h"
#include "formats/out_pprof.h"
#include "util/gzip_buf.h"
#include "util/http_post.h"
#include "util/msg.h"
#include "proc_labels.h"
#include "push.h"
#include "push_spool.h"

#define OTLP_PATH     "/v1development/profiles"
#define INGEST_PATH   "/ingest"
#define MAX_KEY	      64
#define MAX_TOKEN     4096
#define TYPE_PPROF    "application/octet-stream"
#define TYPE_PROTOBUF "application/x-protobuf"
#define HOST_MAX      256

enum outcome { SENT, REJECTED, DOWN };

struct pusher {
	struct push_opts o;
	bool otlp;
	char *base;  /* the URL as sent to, without otlp+ and a final '/' */
	char *token; /* NULL: none */
	char host[HOST_MAX];
	struct spool *spool;
	bool temp_spool;
	bool down; /* the last try found the backend down: said once */
	struct push_stats st;
};

static const char *after_scheme(const char *url, bool *otlp)
{
	static const char *const schemes[] = { "http://", "https://", "otlp+http://",
					       "otlp+https://" };

	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		if (!strncmp(url, schemes[i], strlen(schemes[i]))) {
			*otlp = i >= 2;
			return url + strlen(schemes[i]);
		}
	}
	return NULL;
}

int push__check_url(const char *url, char *err, size_t len)
{
	bool otlp;
	const char *rest = after_scheme(url, &otlp);
	size_t host = rest ? strcspn(rest, ":/") : 0;

	if (!rest) {
		snprintf(err, len,
			 "--push '%s': the URL must begin with http://, https://, otlp+http:// "
			 "or otlp+https://",
			 url);
		return -EINVAL;
	}
	if (!host || strpbrk(rest, " ?#\t\n") || strchr(rest, '@')) {
		snprintf(err, len, "--push '%s': %s", url,
			 !host ? "no host name"
			       : "a query, fragment, space or user name has no "
				 "place here");
		return -EINVAL;
	}
	if (rest[host] == ':') {
		char *end;
		long port = strtol(rest + host + 1, &end, 10);

		if (end == rest + host + 1 || (*end && *end != '/') || port < 1 || port > 65535) {
			snprintf(err, len, "--push '%s': the port must be 1 to 65535", url);
			return -EINVAL;
		}
	}
	return 0;
}

static bool bad_value_char(unsigned char c)
{
	return c < ' ' || c == 0x7f || strchr(",{}=\"'\\", c);
}

int push__check_label(const char *kv, char *err, size_t len)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
	bool ok = eq && klen && klen <= MAX_KEY && (isalpha((unsigned char)kv[0]) || kv[0] == '_');

	for (size_t i = 1; ok && i < klen; i++)
		ok = isalnum((unsigned char)kv[i]) || kv[i] == '_' || kv[i] == '.';
	if (!ok) {
		snprintf(err, len,
			 "--label '%s': expected KEY=VALUE, KEY a letter or '_' then letters, "
			 "digits, '_' or '.' (at most %d)",
			 kv, MAX_KEY);
		return -EINVAL;
	}
	ok = eq[1] != '\0';
	for (const char *c = eq + 1; ok && *c; c++)
		ok = !bad_value_char((unsigned char)*c);
	if (!ok) {
		snprintf(err, len,
			 "--label '%s': the value must be non-empty, without , { } = quotes, "
			 "backslashes or control characters",
			 kv);
		return -EINVAL;
	}
	return 0;
}

/* The bearer token: the file's first line. A file others may read is
 * used, with a warning. */
static int read_token(struct pusher *p, const char *path, char *err, size_t len)
{
	char buf[MAX_TOKEN + 2];
	struct stat st;
	size_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, len, "--push-token-file: cannot read '%s': %s", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	n = (size_t)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n == (size_t)-1 ? 0 : n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!buf[0] || strlen(buf) > MAX_TOKEN) {
		snprintf(err, len, "--push-token-file: '%s' %s", path,
			 buf[0] ? "holds a token longer than 4096 bytes" : "holds no token");
		return -EINVAL;
	}
	if (st.st_mode & (S_IROTH | S_IWOTH))
		p_err("warning: the token file '%s' is readable by every user (chmod 600 it)",
		      path);
	p->token = strdup(buf);
	explicit_bzero(buf, sizeof(buf));
	return p->token ? 0 : -ENOMEM;
}

static int open_spool(struct pusher *p, char *err, size_t len)
{
	char tmpl[4096];
	const char *dir = p->o.spool_dir;

	if (!dir) {
		snprintf(tmpl, sizeof(tmpl), "%s/flamebpf-spool.XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(tmpl)) {
			snprintf(err, len, "cannot make a spool directory in '%s': %s",
				 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
			return -errno;
		}
		dir = tmpl;
		p->temp_spool = true;
	}
	return spool__open(&p->spool, dir, p->o.spool_size, err, len);
}

static int make_base(struct pusher *p)
{
	const char *url = p->o.url + (p->otlp ? strlen("otlp+") : 0);
	size_t n = strlen(url);

	while (n && url[n - 1] == '/')
		n--;
	p->base = strndup(url, n);
	return p->base ? 0 : -ENOMEM;
}

int pusher__new(struct pusher **out, const struct push_opts *o, char *err, size_t len)
{
	struct pusher *p = calloc(1, sizeof(*p));
	int ret;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->o = *o;
	p->o.app = o->app ? o->app : PUSH_APP;
	p->o.spool_size = o->spool_size ? o->spool_size : PUSH_SPOOL_SIZE;
	p->o.timeout_ms = o->timeout_ms ? o->timeout_ms : PUSH_TIMEOUT_MS;
	after_scheme(o->url, &p->otlp);
	if (gethostname(p->host, sizeof(p->host)))
		snprintf(p->host, sizeof(p->host), "unknown");
	ret = make_base(p);
	if (!ret && o->token_file)
		ret = read_token(p, o->token_file, err, len);
	if (!ret)
		ret = open_spool(p, err, len);
	if (ret == -ENOMEM)
		snprintf(err, len, "out of memory");
	if (ret) {
		pusher__free(p);
		return ret;
	}
	*out = p;
	return 0;
}

/* Pyroscope's application name: APP{host=HOST,KEY=VALUE,...}. */
static char *pyroscope_name(const struct pusher *p)
{
	char *name = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&name, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s{host=%s", p->o.app, p->host);
	for (size_t i = 0; i < p->o.nlabels; i++)
		fprintf(f, ",%s", p->o.labels[i]);
	fputc('}', f);
	if (fclose(f)) {
		free(name);
		return NULL;
	}
	return name;
}

static char *pyroscope_url(const struct pusher *p, const struct profile *prof, uint64_t start_ns,
			   uint64_t end_ns)
{
	char *name = pyroscope_name(p), *esc = name ? http__escape(name) : NULL;
	unsigned int freq = profile__meta(prof)->freq;
	char *url = NULL;

	/* from and until in whole seconds: until at least one after from */
	if (esc && asprintf(&url,
			    "%s" INGEST_PATH "?name=%s&from=%" PRIu64 "&until=%" PRIu64
			    "&format=pprof&spyName=flamebpf&sampleRate=%u",
			    p->base, esc, start_ns / 1000000000, (end_ns + 999999999) / 1000000000,
			    freq ? freq : 100) < 0)
		url = NULL;
	free(esc);
	free(name);
	return url;
}

static int encode_pprof(const struct profile *prof, const struct proc_labeler *pl,
			struct spool_item *it)
{
	struct write_opts wo = { .procs = pl };
	FILE *f = open_memstream((char **)&it->body, &it->len);
	int err;

	if (!f)
		return -ENOMEM;
	err = pprof__write(prof, &wo, f);
	if (fclose(f))
		err = err ?: -ENOMEM;
	return err;
}

static int encode_otlp(const struct pusher *p, const struct profile *prof,
		       const struct proc_labeler *pl, uint64_t start_ns, uint64_t end_ns,
		       struct spool_item *it)
{
	struct proc_label res[PUSH_MAX_LABELS + 2] = { { "service.name", p->o.app },
						       { "host.name", p->host } };
	struct otlp_opts oo = { .start_unix_ns = start_ns,
				.end_unix_ns = end_ns,
				.resource = res,
				.nresource = 2,
				.procs = pl };
	char *copies[PUSH_MAX_LABELS] = {};
	uint8_t *raw = NULL;
	size_t len = 0;
	int err = 0;

	for (size_t i = 0; i < p->o.nlabels && !err; i++) {
		copies[i] = strdup(p->o.labels[i]);
		if (!copies[i]) {
			err = -ENOMEM;
			break;
		}
		copies[i][strcspn(copies[i], "=")] = '\0';
		res[oo.nresource++] =
			(struct proc_label){ copies[i], copies[i] + strlen(copies[i]) + 1 };
	}
	err = err ?: otlp__encode(prof, &oo, &raw, &len);
	/* the collectors take gzip (OTLP/HTTP's compression): a third of the bytes */
	err = err ?: gzip__buffer(raw, len, &it->body, &it->len);
	free(raw);
	for (size_t i = 0; i < p->o.nlabels; i++)
		free(copies[i]);
	return err;
}

/* The upload of prof: where it goes, how, and its bytes. */
static int make_item(struct pusher *p, const struct profile *prof, uint64_t start_ns,
		     uint64_t end_ns, struct spool_item *it)
{
	struct proc_labels *pl = proc_labels__new();
	int err;

	memset(it, 0, sizeof(*it));
	if (!pl)
		return -ENOMEM;
	if (p->otlp) {
		it->content_type = strdup(TYPE_PROTOBUF);
		it->encoding = strdup("gzip");
		if (asprintf(&it->url, "%s" OTLP_PATH, p->base) < 0)
			it->url = NULL;
		err = encode_otlp(p, prof, proc_labels__labeler(pl), start_ns, end_ns, it);
	} else {
		it->content_type = strdup(TYPE_PPROF);
		it->form_field = strdup("profile");
		it->url = pyroscope_url(p, prof, start_ns, end_ns);
		err = encode_pprof(prof, proc_labels__labeler(pl), it);
	}
	proc_labels__free(pl);
	if (!err && (!it->content_type || !it->url || (!p->otlp && !it->form_field) ||
		     (p->otlp && !it->encoding)))
		err = -ENOMEM;
	return err;
}

/* Whether a status is the backend's trouble (worth trying again) rather
 * than the upload's. */
static bool retryable(long status)
{
	return status >= 500 || status == 408 || status == 429 || status < 200;
}

static enum outcome send_item(struct pusher *p, const struct spool_item *it)
{
	struct http_request rq = { .url = it->url,
				   .body = it->body,
				   .len = it->len,
				   .content_type = it->content_type,
				   .content_encoding = it->encoding,
				   .form_field = it->form_field,
				   .ca_file = p->o.ca_file,
				   .token = p->token,
				   .timeout_ms = p->o.timeout_ms };
	char why[HTTP_ERR_LEN];
	long status = 0;
	int err = http__post(&rq, &status, why);

	if (!err && status >= 200 && status < 300) {
		p->st.sent++;
		p->st.sent_bytes += it->len;
		if (p->down)
			p_err("push: %s answers again", p->base);
		p->down = false;
		return SENT;
	}
	if (!err && !retryable(status)) {
		p->st.rejected++;
		p_err("push: %s refused an upload of %zu bytes: HTTP %ld%s%s (not retried)",
		      p->base, it->len, status, why[0] ? ": " : "", why);
		return REJECTED;
	}
	if (!p->down) {
		if (err)
			p_err("push: no answer from %s: %s: uploads wait in the spool '%s'",
			      p->base, why, spool__dir(p->spool));
		else
			p_err("push: %s answered HTTP %ld%s%s: uploads wait in the spool '%s'",
			      p->base, status, why[0] ? ": " : "", why, spool__dir(p->spool));
	}
	p->down = true;
	return DOWN;
}

static int spool_item(struct pusher *p, const struct spool_item *it)
{
	uint64_t dropped, bytes;
	int err = spool__add(p->spool, it, &dropped, &bytes);

	if (err) {
		p->st.lost++;
		p_err("push: cannot keep an upload in the spool '%s': %s: it is lost",
		      spool__dir(p->spool), strerror(-err));
		return err;
	}
	p->st.spooled++;
	if (dropped) {
		p->st.dropped += dropped;
		p->st.dropped_bytes += bytes;
		p_err("push: spool '%s' over %" PRIu64 " bytes: dropped the %" PRIu64
		      " oldest upload%s (%" PRIu64 " bytes; %" PRIu64 " dropped in all)",
		      spool__dir(p->spool), p->o.spool_size, dropped, dropped == 1 ? "" : "s",
		      bytes, p->st.dropped);
	}
	return 0;
}

int pusher__flush(struct pusher *p)
{
	struct spool_item it;
	enum outcome out = SENT;
	int err;

	while (out != DOWN && (err = spool__peek(p->spool, &it)) != -ENOENT) {
		if (err) {
			p->st.lost++;
			p_err("push: cannot read the oldest upload in the spool '%s': %s: it is "
			      "lost",
			      spool__dir(p->spool), strerror(-err));
			spool__pop(p->spool);
			continue;
		}
		out = send_item(p, &it);
		if (out != DOWN)
			spool__pop(p->spool);
		spool_item__free(&it);
	}
	return spool__count(p->spool) ? -EAGAIN : 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

int pusher__push(struct pusher *p, const struct profile *prof, uint64_t start_ns, uint64_t end_ns)
{
	uint64_t t0 = mono_ns(), t1;
	struct spool_item it;
	int err = make_item(p, prof, start_ns, end_ns, &it);

	t1 = mono_ns();
	p->st.encode_ns = t1 - t0;
	p->st.last_bytes = err ? 0 : it.len;
	if (err) {
		p->st.lost++;
		p_err("push: cannot encode the profile: %s: it is lost", strerror(-err));
	} else if (spool__count(p->spool)) {
		/* behind the older ones, in order */
		err = spool_item(p, &it) ?: pusher__flush(p);
	} else if (send_item(p, &it) == DOWN) {
		err = spool_item(p, &it) ?: -EAGAIN;
	}
	p->st.send_ns = mono_ns() - t1;
	spool_item__free(&it);
	return err;
}

const struct push_stats *pusher__stats(const struct pusher *p)
{
	return &p->st;
}

size_t pusher__pending(const struct pusher *p)
{
	return spool__count(p->spool);
}

const char *pusher__spool_dir(const struct pusher *p)
{
	return spool__dir(p->spool);
}

void pusher__free(struct pusher *p)
{
	if (!p)
		return;
	spool__free(p->spool, p->temp_spool);
	if (p->token)
		explicit_bzero(p->token, strlen(p->token));
	free(p->token);
	free(p->base);
	free(p);
}
