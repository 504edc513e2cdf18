// SPDX-License-Identifier: GPL-2.0
/*
 * --push, end to end: flamebpf sends its profile to
 * tests/tools/push_receiver.py on localhost, which stands in for Grafana
 * Pyroscope's ingest API (pprof in a form) and an OTLP/HTTP collector
 * (profiles v1development). Each upload is read by pprof's reference
 * reader (`go tool pprof`) or decoded with the protobuf-c code of
 * proto/otlp_profiles.proto, and checked against the same capture's
 * folded output: sample totals, the sampled process's labels (pid, comm,
 * build-id, cgroup), the interval's times, the --label pairs. A backend
 * that is down keeps the upload in --spool until the next run; bad URLs,
 * labels and token files are usage errors.
 */
#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "gen/otlp_profiles.pb-c.h"

#define RECEIVER "tests/tools/push_receiver.py"
#define SECS	 "2"

typedef Flamebpf__Otlp__ExportProfilesServiceRequest otlp_request;
typedef Flamebpf__Otlp__ProfilesDictionary otlp_dict;

struct receiver {
	struct h_proc proc;
	char dir[4096];
	int port;
};

static void require_python(void)
{
	if (access("/usr/bin/python3", X_OK)) {
		print_message("SKIP: no /usr/bin/python3 to run the receiver\n");
		skip();
	}
}

/* The receiver, storing into a directory of its own (NAME), on port (0:
 * one of the kernel's choice). */
static void start_receiver(struct receiver *rv, const char *name, int port, int status)
{
	char port_file[4200], p[16], code[16];
	double until = h_now() + 10;
	char *text;

	require_python();
	snprintf(rv->dir, sizeof(rv->dir), "%s", h_path(name));
	mkdir(rv->dir, 0700);
	snprintf(port_file, sizeof(port_file), "%s/port", rv->dir);
	unlink(port_file);
	snprintf(p, sizeof(p), "%d", port);
	snprintf(code, sizeof(code), "%d", status);
	assert_int_equal(h_start(&rv->proc, H_ARGV("/usr/bin/python3", RECEIVER, rv->dir, port_file,
						   "--port", p, "--status", code)),
			 0);
	while (!h_exists(port_file) && h_now() < until)
		h_sleep(0.02);
	text = h_slurp(port_file);
	if (!text)
		fail_msg("the receiver did not start");
	rv->port = atoi(text);
	free(text);
}

/* Upload n's metadata (DIR/n.json), parsed; NULL when it did not arrive. */
static json_object *upload_meta(const struct receiver *rv, int n)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%d.json", rv->dir, n);
	return h_exists(path) ? json_object_from_file(path) : NULL;
}

static const char *jstr(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, a, &v) || (b && !json_object_object_get_ex(v, b, &v)))
		fail_msg("upload metadata without %s%s%s", a, b ? "." : "", b ? b : "");
	return json_object_get_string(v);
}

static const char *upload_path(const struct receiver *rv, int n, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%d.bin", rv->dir, n);
	return buf;
}

static void hostname(char *buf, size_t len)
{
	assert_int_equal(gethostname(buf, len), 0);
}

/* The GNU build-id of path as readelf -n prints it ("" when none). */
static void build_id(const char *path, char *id, size_t len)
{
	struct h_result r;
	const char *at;

	id[0] = '\0';
	assert_int_equal(h_run(&r, 30, H_ARGV("readelf", "-n", path)), 0);
	at = strstr(r.out, "Build ID: ");
	if (at)
		snprintf(id, len, "%.*s", (int)strcspn(at + 10, "\n"), at + 10);
	h_result_free(&r);
}

/* The cgroup v2 path of pid ("" under cgroup v1). */
static void cgroup_of(pid_t pid, char *cg, size_t len)
{
	char path[64], *text, *at;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	text = h_slurp(path);
	assert_non_null(text);
	at = strstr(text, "0::");
	cg[0] = '\0';
	if (at)
		snprintf(cg, len, "%.*s", (int)strcspn(at + 3, "\n"), at + 3);
	free(text);
}

struct capture {
	struct h_proc work;
	struct h_folded f;
	double before, after; /* the run's bounds, seconds since the epoch */
	char build_id[160], cgroup[512], host[256];
};

static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* flamebpf -F 99 -d 2 -p cpu_tree -o FOLDED --push URL --app ci-app
 * --label env=ci [extra...]: exit 0, the folded file loaded. */
static void capture_pushed(struct capture *c, const char *url, const char *extra)
{
	char pid[16];
	struct h_result r;

	memset(c, 0, sizeof(*c));
	h_start_workload(&c->work, H_ARGV(h_workload("cpu_tree"), "6"));
	snprintf(pid, sizeof(pid), "%d", c->work.pid);
	build_id(h_workload("cpu_tree"), c->build_id, sizeof(c->build_id));
	cgroup_of(c->work.pid, c->cgroup, sizeof(c->cgroup));
	hostname(c->host, sizeof(c->host));
	c->before = unix_now();
	h_run_folded(&r, 60, h_path("push.folded"), &c->f,
		     H_ARGV(h_flamebpf(), "-F", "99", "-d", SECS, "-p", pid, "-o",
			    h_path("push.folded"), "--push", url, "--app", "ci-app", "--label",
			    "env=ci", extra ? extra : "--label", extra ? "" : "team=perf"));
	c->after = unix_now();
	if (!strstr(r.err, "samples"))
		h_dump(&r, "flamebpf");
	h_result_free(&r);
	h_stop(&c->work);
}

/* The number after "WHAT: " in the line of pprof -tags that starts the
 * label KEY, and whether VALUE is one of its values. */
static bool tag_has(const char *tags, const char *key, const char *value)
{
	char head[128];
	const char *at, *end;

	snprintf(head, sizeof(head), " %s: Total", key);
	at = strstr(tags, head);
	if (!at)
		return false;
	end = strstr(at + strlen(head), ": Total");
	while (end && end > at && end[-1] != '\n')
		end--;
	for (const char *v = strstr(at, value); v; v = strstr(v + 1, value))
		if ((!end || v < end) && v[-1] == ' ' && (v[strlen(value)] == '\n'))
			return true;
	return false;
}

/* "Showing nodes accounting for N, P% of TOTAL total": TOTAL. */
static unsigned long long pprof_total(const char *file)
{
	char *text = h_pprof_top(file, "samples", "minimum", false);
	const char *of = strstr(text, "% of ");
	unsigned long long total;

	if (!of)
		fail_msg("no total in go tool pprof's report:\n%s", text);
	total = strtoull(of + 5, NULL, 10);
	free(text);
	return total;
}

static void test_pyroscope(void **state)
{
	struct receiver rv;
	struct capture c;
	char url[64], name[512], path[4200], pid[16];
	json_object *m;
	char *tags;
	long long from, until;

	(void)state;
	h_require_bpf();
	h_require_go();
	start_receiver(&rv, "pyroscope", 0, 200);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", rv.port);
	capture_pushed(&c, url, NULL);
	m = upload_meta(&rv, 0);
	if (!m)
		fail_msg("nothing arrived at the receiver");
	assert_null(upload_meta(&rv, 1));
	assert_string_equal(jstr(m, "path", NULL), "/ingest");
	assert_string_equal(jstr(m, "query", "format"), "pprof");
	snprintf(name, sizeof(name), "ci-app{host=%s,env=ci,team=perf}", c.host);
	assert_string_equal(jstr(m, "query", "name"), name);
	assert_string_equal(jstr(m, "query", "sampleRate"), "99");
	from = atoll(jstr(m, "query", "from"));
	until = atoll(jstr(m, "query", "until"));
	assert_in_range(from, (long long)c.before, (long long)c.after);
	assert_in_range(until, from + 2, (long long)c.after + 1);
	json_object_put(m);

	upload_path(&rv, 0, path, sizeof(path));
	assert_int_equal(pprof_total(path), c.f.total);
	tags = h_pprof_tags(path);
	snprintf(pid, sizeof(pid), "%d", c.work.pid);
	if (!tag_has(tags, "pid", pid) || !tag_has(tags, "comm", "cpu_tree") ||
	    (c.build_id[0] && !tag_has(tags, "build_id", c.build_id)) ||
	    (c.cgroup[0] && !tag_has(tags, "cgroup", c.cgroup)))
		fail_msg("labels pid %s, comm cpu_tree, build_id %s, cgroup %s not all in:\n%s",
			 pid, c.build_id, c.cgroup, tags);
	free(tags);
	h_folded_free(&c.f);
}

/* Interval files ("iv-YYYYMMDD-HHMMSS[-N].folded") in the order they were
 * written: the second of one second is NAME-2.folded, which strcmp puts
 * before NAME.folded (CI's ASan pass once compared interval 3's file with
 * interval 2's upload so). */
static int by_interval(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t len = strlen("iv-YYYYMMDD-HHMMSS");
	int c = strncmp(x, y, len);

	if (c || strlen(x) <= len || strlen(y) <= len)
		return c;
	return (x[len] == '-' ? atoi(x + len + 1) : 1) - (y[len] == '-' ? atoi(y + len + 1) : 1);
}

/* --continuous with --push: each interval's profile goes, in order, as
 * the file of that interval holds it (go tool pprof's total equals the
 * folded file's), the intervals' times one after the other. */
static void test_continuous(void **state)
{
	char url[64], pattern[4200], path[4200], file[8400], *names[16];
	long long from[16], until[16];
	size_t n = 0, all;
	struct h_folded f;
	struct receiver rv;
	struct h_result r;
	struct h_proc work;

	(void)state;
	h_require_bpf();
	h_require_go();
	start_receiver(&rv, "continuous", 0, 200);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", rv.port);
	snprintf(pattern, sizeof(pattern), "%s/iv-%%Y%%m%%d-%%H%%M%%S.folded", rv.dir);
	h_start_workload(&work, H_ARGV(h_workload("cpu_tree"), "8"));
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-F", "99", "--continuous", "--interval", "1s",
				      "-d", "3.5", "-o", pattern, "--push", url, "--spool",
				      h_path("spool-continuous"))),
			 0);
	h_assert_status(&r, 0);
	h_stop(&work);
	all = h_list_dir(rv.dir, names, 16);
	for (size_t i = 0; i < all; i++)
		if (!strncmp(names[i], "iv-", 3))
			names[n++] = names[i];
		else
			free(names[i]);
	qsort(names, n, sizeof(names[0]), by_interval);
	if (n < 3 || n > 5) {
		h_dump(&r, "flamebpf");
		fail_msg("%zu interval files, expected 4", n);
	}
	for (size_t i = 0; i < n; i++) {
		json_object *m = upload_meta(&rv, (int)i);

		if (!m) {
			h_dump(&r, "flamebpf");
			fail_msg("interval %zu was written but not pushed", i + 1);
		}
		from[i] = atoll(jstr(m, "query", "from"));
		until[i] = atoll(jstr(m, "query", "until"));
		json_object_put(m);
		snprintf(file, sizeof(file), "%s/%s", rv.dir, names[i]);
		h_folded_must_load(file, &f);
		print_message("interval %zu: %lld to %lld, %llu samples\n", i + 1, from[i],
			      until[i], f.total);
		assert_int_equal(pprof_total(upload_path(&rv, (int)i, path, sizeof(path))),
				 f.total);
		h_folded_free(&f);
		if (i && (from[i] < from[i - 1] || from[i] > until[i - 1]))
			fail_msg("interval %zu begins at %lld, not where %zu ended (%lld)", i + 1,
				 from[i], i, until[i - 1]);
		free(names[i]);
	}
	assert_null(upload_meta(&rv, (int)n));
	h_result_free(&r);
}

/* The string at index i of the dictionary. */
static const char *dstr(const otlp_dict *d, int32_t i)
{
	assert_in_range(i, 0, d->n_string_table - 1);
	return d->string_table[i];
}

/* The value of attribute key among indices idx, as text ("" if none). */
static const char *attr(const otlp_dict *d, const int32_t *idx, size_t n, const char *key,
			char *buf, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const Flamebpf__Otlp__KeyValueAndUnit *a = d->attribute_table[idx[i]];

		if (strcmp(dstr(d, a->key_strindex), key))
			continue;
		if (a->value->value_case == FLAMEBPF__OTLP__ANY_VALUE__VALUE_INT_VALUE)
			snprintf(buf, len, "%lld", (long long)a->value->int_value);
		else
			snprintf(buf, len, "%s", a->value->string_value);
		return buf;
	}
	return "";
}

static const char *resource_attr(const otlp_request *rq, const char *key)
{
	const Flamebpf__Otlp__Resource *res = rq->resource_profiles[0]->resource;

	for (size_t i = 0; i < res->n_attributes; i++)
		if (!strcmp(res->attributes[i]->key, key))
			return res->attributes[i]->value->string_value;
	return "";
}

/* Every table starts with its zero value; string 0 is "". */
static void check_zeros(const otlp_dict *d)
{
	assert_true(d->n_string_table && d->n_mapping_table && d->n_location_table &&
		    d->n_function_table && d->n_attribute_table && d->n_stack_table);
	assert_string_equal(d->string_table[0], "");
	assert_int_equal(d->stack_table[0]->n_location_indices, 0);
	assert_int_equal(d->function_table[0]->name_strindex, 0);
	assert_int_equal(d->location_table[0]->n_lines, 0);
	assert_int_equal(d->attribute_table[0]->key_strindex, 0);
}

/* The samples' total, that of the samples with tree_a in their stack, and
 * whether the workload's samples carry its pid, comm, build-id, cgroup. */
static void check_samples(const otlp_dict *d, const Flamebpf__Otlp__Profile *pr,
			  const struct capture *c)
{
	unsigned long long total = 0, tree_a = 0, mine = 0;
	char pid[16], buf[512];

	snprintf(pid, sizeof(pid), "%d", c->work.pid);
	for (size_t i = 0; i < pr->n_samples; i++) {
		const Flamebpf__Otlp__Sample *s = pr->samples[i];
		const Flamebpf__Otlp__Stack *st = d->stack_table[s->stack_index];
		const int32_t *a = s->attribute_indices;
		size_t na = s->n_attribute_indices;

		assert_int_equal(s->n_values, 1);
		total += s->values[0];
		for (size_t j = 0; j < st->n_location_indices; j++) {
			const Flamebpf__Otlp__Location *l =
				d->location_table[st->location_indices[j]];
			const char *fn = dstr(
				d, d->function_table[l->lines[0]->function_index]->name_strindex);

			if (!strcmp(fn, "tree_a")) {
				tree_a += s->values[0];
				break;
			}
		}
		if (strcmp(attr(d, a, na, "process.pid", buf, sizeof(buf)), pid))
			continue;
		mine += s->values[0];
		assert_string_equal(attr(d, a, na, "process.executable.name", buf, sizeof(buf)),
				    "cpu_tree");
		assert_string_equal(
			attr(d, a, na, "process.executable.build_id.gnu", buf, sizeof(buf)),
			c->build_id);
		assert_string_equal(attr(d, a, na, "process.linux.cgroup", buf, sizeof(buf)),
				    c->cgroup);
	}
	assert_int_equal(total, c->f.total);
	assert_int_equal(mine, c->f.total);
	assert_int_equal(tree_a, h_sum_frame(&c->f, "tree_a"));
	assert_true(tree_a > 0);
}

static void test_otlp(void **state)
{
	struct receiver rv;
	struct capture c;
	char url[64], path[4200];
	const Flamebpf__Otlp__Profile *pr;
	otlp_request *rq;
	json_object *m;
	char *body;
	struct stat st;

	(void)state;
	h_require_bpf();
	start_receiver(&rv, "otlp", 0, 200);
	snprintf(url, sizeof(url), "otlp+http://127.0.0.1:%d", rv.port);
	capture_pushed(&c, url, NULL);
	m = upload_meta(&rv, 0);
	if (!m)
		fail_msg("nothing arrived at the receiver");
	assert_string_equal(jstr(m, "path", NULL), "/v1development/profiles");
	assert_string_equal(jstr(m, "content_type", NULL), "application/x-protobuf");
	assert_string_equal(jstr(m, "content_encoding", NULL), "gzip");
	json_object_put(m);

	body = h_slurp(upload_path(&rv, 0, path, sizeof(path)));
	assert_non_null(body);
	assert_int_equal(stat(path, &st), 0);
	rq = flamebpf__otlp__export_profiles_service_request__unpack(NULL, (size_t)st.st_size,
								     (const uint8_t *)body);
	free(body);
	if (!rq)
		fail_msg("the upload is no ExportProfilesServiceRequest");
	assert_int_equal(rq->n_resource_profiles, 1);
	assert_string_equal(resource_attr(rq, "host.name"), c.host);
	assert_string_equal(resource_attr(rq, "service.name"), "ci-app");
	assert_string_equal(resource_attr(rq, "env"), "ci");
	assert_string_equal(resource_attr(rq, "team"), "perf");
	assert_int_equal(rq->resource_profiles[0]->n_scope_profiles, 1);
	assert_int_equal(rq->resource_profiles[0]->scope_profiles[0]->n_profiles, 1);
	pr = rq->resource_profiles[0]->scope_profiles[0]->profiles[0];
	check_zeros(rq->dictionary);
	assert_string_equal(dstr(rq->dictionary, pr->sample_type->type_strindex), "samples");
	assert_string_equal(dstr(rq->dictionary, pr->period_type->type_strindex), "cpu");
	assert_int_equal(pr->period, 1000000000 / 99);
	assert_in_range(pr->time_unix_nano, (uint64_t)(c.before * 1e9), (uint64_t)(c.after * 1e9));
	assert_in_range(pr->duration_nano, 2000000000ULL, 2500000000ULL);
	check_samples(rq->dictionary, pr, &c);
	flamebpf__otlp__export_profiles_service_request__free_unpacked(rq, NULL);
	h_folded_free(&c.f);
}

/* The token file's first line as "Authorization: Bearer TOKEN"; a file
 * every user may read is used, with a warning. */
static void test_token(void **state)
{
	struct receiver rv;
	struct h_result r;
	char url[64], arg[4200];
	const char *token = h_path("token");
	FILE *f = fopen(token, "w");
	json_object *m;

	(void)state;
	h_require_bpf();
	assert_non_null(f);
	fputs("s3cr3t-t0ken\n", f);
	fclose(f);
	chmod(token, 0644);
	start_receiver(&rv, "token-rx", 0, 200);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", rv.port);
	snprintf(arg, sizeof(arg), "--push-token-file=%s", token);
	assert_int_equal(
		h_run(&r, 60, H_ARGV(h_flamebpf(), "-F", "99", "-d", "0.5", "--push", url, arg)),
		0);
	h_assert_status(&r, 0);
	if (!strstr(r.err, "warning: the token file") || strstr(r.err, "s3cr3t"))
		fail_msg("no warning of a world-readable token file, or the token shown:\n%s",
			 r.err);
	h_result_free(&r);
	m = upload_meta(&rv, 0);
	assert_non_null(m);
	assert_string_equal(jstr(m, "authorization", NULL), "Bearer s3cr3t-t0ken");
	json_object_put(m);
}

/* A backend down: exit 1, the upload kept in --spool; the next run, the
 * backend up, sends it first, then its own. */
static void test_down_then_next_run(void **state)
{
	struct receiver rv;
	struct h_result r;
	char url[64], spool[4200];
	json_object *m0, *m1;
	int port;

	(void)state;
	h_require_bpf();
	start_receiver(&rv, "later", 0, 200);
	port = rv.port;
	h_stop(&rv.proc); /* its port, nobody listening now */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	snprintf(spool, sizeof(spool), "%s", h_path("spool"));
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-F", "99", "-d", "0.5", "--push", url,
				      "--spool", spool)),
			 0);
	h_assert_status(&r, 1);
	if (!strstr(r.err, "kept in"))
		fail_msg("the spooled upload not said:\n%s", r.err);
	h_result_free(&r);
	h_sleep(1.1); /* the next interval starts a second later */
	start_receiver(&rv, "later", port, 200);
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-F", "99", "-d", "0.5", "--push", url,
				      "--spool", spool)),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	m0 = upload_meta(&rv, 0);
	m1 = upload_meta(&rv, 1);
	assert_non_null(m0);
	assert_non_null(m1);
	assert_null(upload_meta(&rv, 2));
	assert_true(atoll(jstr(m0, "query", "from")) < atoll(jstr(m1, "query", "from")));
	json_object_put(m0);
	json_object_put(m1);
}

static void test_bad_input(void **state)
{
	const char *const f[] = { "-F", "99", "-d", "1", NULL };

	(void)state;
	h_assert_refused(H_ARGV("--push", "ftp://127.0.0.1:4040"), 2, f, "must begin with http");
	h_assert_refused(H_ARGV("--push", "http://:4040"), 2, f, "no host name");
	h_assert_refused(H_ARGV("--push", "http://h:99999"), 2, f, "port must be 1 to 65535");
	h_assert_refused(H_ARGV("--push", "http://h:4040", "--label", "1env=x"), 4, f,
			 "--label '1env=x'");
	h_assert_refused(H_ARGV("--push", "http://h:4040", "--label", "env=a,b"), 4, f,
			 "the value must be");
	h_assert_refused(H_ARGV("--push", "http://h:4040", "--label", "env"), 4, f,
			 "expected KEY=VALUE");
	h_assert_refused(H_ARGV("--label", "env=x"), 2, f, "--label is for --push URL");
	h_assert_refused(H_ARGV("--push", "http://h:4040", "--spool-size", "0"), 4, f,
			 "invalid --spool-size");
	h_assert_refused(H_ARGV("--push", "http://h:4040", "--push-token-file", "/nonexistent"), 4,
			 f, "cannot read '/nonexistent'");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_pyroscope, h_test_teardown),
		cmocka_unit_test_teardown(test_otlp, h_test_teardown),
		cmocka_unit_test_teardown(test_token, h_test_teardown),
		cmocka_unit_test_teardown(test_down_then_next_run, h_test_teardown),
		cmocka_unit_test_teardown(test_continuous, h_test_teardown),
		cmocka_unit_test_teardown(test_bad_input, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests(tests, h_group_setup, h_group_teardown);
}
