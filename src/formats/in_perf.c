// SPDX-License-Identifier: GPL-2.0
/* `perf script` text back into a profile, as perf versions print it:
 *
 *   COMM [PID/]TID [[CPU]] SECS.FRAC: [PERIOD] EVENT: [TRACE TEXT]
 *   \tADDR SYMBOL+0xOFF (DSO)          leaf first, one line a frame
 *   (empty line)
 *
 * with or without CPU, PID, period and DSO, `#` header blocks, and records on
 * one line when perf ran without call graphs. The frames are named the way
 * stackcollapse-perf.pl --kernel names them, so that folded output agrees
 * with it: one trailing "+0x..." dropped, "[unknown]" replaced by the DSO's
 * name, arguments cut from C++ names, kernel frames (DSO "[...]" or vmlinux)
 * marked, "a->b" inline chains split, spaces in COMM made underscores, and
 * only the records of the first event seen kept. Where that script fails (a
 * COMM that ends in a number, a DSO path with spaces or " (deleted)", frames
 * without a DSO, records on one line) this reader still reads the line as
 * perf meant it.
 *
 * Two deliberate differences: each record weighs 1, a sample, the way
 * flamebpf's own folded output counts (so a capture's perf output folds to
 * its folded output); reader_opts.period (render --period) weighs it by its
 * period instead, like the script. And "[vdso]", "[vsyscall]" and
 * "[uprobes]" are user code, not kernel: no "_[k]" on their frames.
 *
 * Time off the CPU: `offcpu-time` records (perf record --off-cpu's event,
 * and flamebpf's --off-cpu) are blocks, whose period is their length in
 * ns. A file that holds them is time, not samples: every record weighs its
 * period, and the clock samples beside them (cpu-clock, task-clock: --wall,
 * or perf record --off-cpu -e cpu-clock) are kept with them, each worth
 * its period too; the profile is then named as flamebpf names its own
 * (PROFILE_EVENT_OFFCPU, or PROFILE_EVENT_WALL with samples), and each
 * stack's count is its records: blocks and samples. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "in.h"
#include "out_perf.h"

#define MAX_TOKENS   24
#define HIT_STR_MAX  64		 /* a hit's string argument kept */
#define MAX_GAP_NS   10000000ULL /* a sample of an event that is no clock spans at most this */
#define OFFCPU_EVENT "offcpu-time"

struct token {
	const char *s;
	size_t len;
};

/* The fields of a record's header line; pointers into the line. */
struct hdr {
	const char *comm;
	size_t comm_len;
	uint32_t pid, tid, cpu;
	bool has_pid, has_ts;
	uint64_t ts, period;
	struct token event;
	const char *rest; /* after the event: trace text, or the frame of a record on one line */
	/* a probe's hit's arguments, from its trace text: numbers, or strings
	 * (is_str), copied, the line being gone when the record ends */
	uint64_t args[PROFILE_NARGS];
	char str[PROFILE_NARGS][HIT_STR_MAX];
	uint8_t is_signed, is_str;
	bool hit;
};

struct frame_line {
	uint64_t addr;
	const char *sym, *dso;
	size_t sym_len, dso_len;
	const char *rest; /* the line after the address */
	size_t rest_len;
};

/* Frame lines seen, by their text after the address, with the frames they
 * made: the same function's line is named once, not on every sample. Each
 * is one record of the arena, its ids and text right after it, so that a
 * hit reads the table's slot and one place in memory. */
struct cached {
	uint32_t len; /* of the text */
	uint32_t n;   /* ids */
	bool java;
	/* uint32_t ids[n]; char text[len]; */
};

struct frame_cache {
	struct hashmap idx; /* hash of the text -> offset in arena */
	char *arena;
	size_t used, cap;
};

struct pending {
	struct profile_event ev;
	uint32_t pid, tid;
	bool timed; /* the period is its duration (a clock event) */
};

struct record {
	bool open, skip; /* skip: a record of another event */
	bool one_line;	 /* its leaf was on the header line (perf without -g) */
	uint64_t line;	 /* of its header */
	struct hdr h;
	struct strbuf comm; /* as printed */
	/* h.event's text: the line it was read from is gone once the frames
	 * are read (the reader's buffer moves on) */
	struct strbuf event;
	struct strbuf root; /* spaces made underscores */
	bool java;	    /* Java names are tidied: the root is exactly "java" */
	uint32_t *frames;   /* leaf first */
	size_t n, cap;
};

struct perf {
	struct in_ctx *c;
	struct record r;
	struct strbuf name;
	char *event;	  /* the first event seen: only its records are kept */
	bool single_line; /* records of one line: perf ran without call graphs */
	struct pending *ev;
	size_t nev, evcap;
	uint64_t first_ts, last_ts;
	char *meta[3];		  /* os release, nrcpus online, cmdline */
	struct frame_cache cache; /* when addresses are not kept */
	uint64_t *ns;		  /* by stack: the periods of its records */
	size_t nns, nscap;
	bool offcpu, clock; /* offcpu-time records kept; clock samples kept */
};

/* ---- tokens ---- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static size_t tokenize(const char *s, struct token *t, size_t max)
{
	size_t n = 0;

	while (n < max) {
		while (is_space(*s))
			s++;
		if (!*s)
			break;
		t[n].s = s;
		while (*s && !is_space(*s))
			s++;
		t[n].len = s - t[n].s;
		n++;
	}
	return n;
}

static size_t span(const struct token *t, const char *set)
{
	size_t i = 0;

	while (i < t->len && strchr(set, t->s[i]))
		i++;
	return i;
}

/* "TID" or "PID/TID" */
static bool is_ids(const struct token *t)
{
	size_t d = span(t, "0123456789");

	if (!d || d == t->len)
		return d > 0;
	return t->s[d] == '/' && d + 1 < t->len &&
	       strspn(t->s + d + 1, "0123456789") == t->len - d - 1;
}

static bool is_cpu(const struct token *t)
{
	return t->len >= 3 && t->s[0] == '[' && t->s[t->len - 1] == ']' &&
	       strspn(t->s + 1, "0123456789") == t->len - 2;
}

/* "SECS.FRAC:" */
static bool is_time(const struct token *t)
{
	size_t d = span(t, "0123456789");

	return d && d + 2 < t->len && t->s[d] == '.' && t->s[t->len - 1] == ':' &&
	       strspn(t->s + d + 1, "0123456789") == t->len - d - 2;
}

static bool is_event(const struct token *t)
{
	return t->len > 1 && t->s[t->len - 1] == ':';
}

static uint64_t parse_u64(const char *s, size_t len)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len && v < UINT64_MAX / 10; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static uint64_t parse_time(const struct token *t)
{
	size_t d = span(t, "0123456789"), frac = t->len - d - 2;
	uint64_t ns = parse_u64(t->s + d + 1, frac > 9 ? 9 : frac);

	for (size_t i = frac; i < 9; i++)
		ns *= 10;
	return parse_u64(t->s, d) * 1000000000ULL + ns;
}

/* ---- the header line ---- */

/* The token that holds the ids: followed by the CPU, the time, or nothing.
 * A line that starts with the COMM may have neither ("comm 123 cycles:"):
 * then the first number after it. -1 when there is none. */
static int ids_token(const char *line, const struct token *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_ids(&t[i]) && (i + 1 == n || is_cpu(&t[i + 1]) || is_time(&t[i + 1])))
			return i;
	for (size_t i = 1; i < n && !is_space(line[0]); i++)
		if (is_ids(&t[i]))
			return i;
	return -1;
}

static void set_ids(struct hdr *h, const struct token *t)
{
	const char *slash = memchr(t->s, '/', t->len);

	h->has_pid = slash != NULL;
	if (slash) {
		h->pid = parse_u64(t->s, slash - t->s);
		h->tid = parse_u64(slash + 1, t->s + t->len - slash - 1);
	} else {
		h->tid = parse_u64(t->s, t->len); /* perf's default prints the TID */
		h->pid = PROFILE_PID_UNKNOWN;
	}
}

/* A hit's string argument from its opening quote q to the closing one
 * that ends a word, into h's slot k. Returns where it ended, or NULL. */
static const char *parse_str_arg(const char *q, struct hdr *h, uint64_t k)
{
	const char *end = q + 1;

	while (*end && !(*end == '"' && (end[1] == ' ' || end[1] == '\t' || end[1] == '\n' ||
					 end[1] == '\r' || !end[1])))
		end++;
	if (!*end)
		return NULL;
	snprintf(h->str[k], sizeof(h->str[k]), "%.*s", (int)(end - q - 1), q + 1);
	h->is_str |= 1u << k;
	h->hit = true;
	return end + 1;
}

/* A probe's argument in the trace text after its event: "argK=V", K from
 * 1 as perf names a probe's fields, V decimal, negative, 0x hex, or a
 * string in quotes (which may hold spaces). Returns where it ended, or
 * NULL for no argument. */
static const char *parse_arg(const struct token *t, struct hdr *h)
{
	size_t d = 3;
	uint64_t k, v;
	bool neg;
	char *end;

	if (t->len < 6 || strncmp(t->s, "arg", 3))
		return NULL;
	while (d < t->len && t->s[d] >= '0' && t->s[d] <= '9')
		d++;
	if (d == 3 || d > 4 || d + 1 >= t->len || t->s[d] != '=')
		return NULL;
	k = parse_u64(t->s + 3, d - 3) - 1;
	if (k >= PROFILE_NARGS)
		return NULL;
	if (t->s[d + 1] == '"')
		return parse_str_arg(t->s + d + 1, h, k);
	neg = t->s[d + 1] == '-';
	errno = 0;
	v = neg ? (uint64_t)strtoll(t->s + d + 1, &end, 10)
		: strtoull(t->s + d + 1, &end,
			   t->len > d + 3 && !strncmp(t->s + d + 1, "0x", 2) ? 16 : 10);
	if (errno || end != t->s + t->len || (!neg && !(t->s[d + 1] >= '0' && t->s[d + 1] <= '9')))
		return NULL;
	h->args[k] = v;
	h->is_signed |= neg ? 1u << k : 0;
	h->hit = true;
	return end;
}

/* What follows the ids: [CPU] TIME: PERIOD EVENT: REST, each optional. */
static void parse_fields(struct hdr *h, const struct token *t, size_t i, size_t n)
{
	if (i < n && is_cpu(&t[i]))
		h->cpu = parse_u64(t[i].s + 1, t[i].len - 2), i++;
	if (i < n && is_time(&t[i]))
		h->ts = parse_time(&t[i]), h->has_ts = true, i++;
	if (i + 1 < n && span(&t[i], "0123456789") == t[i].len && is_event(&t[i + 1]))
		h->period = parse_u64(t[i].s, t[i].len), i++;
	if (i < n && is_event(&t[i]))
		h->event = (struct token){ t[i].s, t[i].len - 1 }, i++;
	h->rest = i < n ? t[i].s : "";
	for (const char *past = NULL; i < n; i++) {
		const char *end;

		if (past && t[i].s < past)
			continue; /* a word of a string argument */
		end = parse_arg(&t[i], h);
		past = end ? end : past;
	}
}

static bool parse_header(const char *line, struct hdr *h)
{
	struct token t[MAX_TOKENS];
	size_t n = tokenize(line, t, MAX_TOKENS);
	int ids = ids_token(line, t, n);

	memset(h, 0, sizeof(*h));
	if (ids < 0)
		return false;
	h->comm = ids ? t[0].s : "";
	h->comm_len = ids ? (size_t)(t[ids - 1].s + t[ids - 1].len - t[0].s) : 0;
	set_ids(h, &t[ids]);
	parse_fields(h, t, ids + 1, n);
	return true;
}

bool in_perf__is_header(const char *line)
{
	struct hdr h;

	return parse_header(line, &h) && h.has_ts;
}

/* ---- frame lines ---- */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The '(' that opens the DSO: the match of the last ')', after a blank or
 * at the start; NULL when there is none. */
static const char *dso_open(const char *s, const char *end)
{
	const char *last;
	int depth = 0;

	if (end[-1] != ')')
		return NULL;
	/* the usual DSO has no parentheses of its own: the last '(' opens it */
	last = memrchr(s, '(', end - 1 - s);
	if (last && !memchr(last + 1, ')', end - 2 - last))
		return last == s || last[-1] == ' ' ? last : NULL;
	for (const char *p = end - 1; p >= s; p--) {
		depth += (*p == ')') - (*p == '(');
		if (!depth)
			return p == s || p[-1] == ' ' ? p : NULL;
	}
	return NULL;
}

static unsigned hex_value(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* "ADDR SYMBOL (DSO)", "ADDR SYMBOL" or "ADDR (DSO)", after any blanks, in
 * [s, end), or up to a NUL before end. A DSO's " (deleted)" (a file replaced
 * since) is left out. */
static bool parse_frame(const char *s, const char *end, struct frame_line *fl)
{
	static const char deleted[] = " (deleted)";
	const char *a, *open;

	while (is_space(*s))
		s++;
	fl->addr = 0;
	for (a = s; is_hex(*s); s++)
		fl->addr = fl->addr << 4 | hex_value(*s);
	if (s == a || s - a > 16 || !is_space(*s))
		return false;
	while (is_space(*s))
		s++;
	for (end = s + strnlen(s, end - s); end > s && is_space(end[-1]); end--)
		;
	if (end == s)
		return false;
	fl->rest = s;
	fl->rest_len = end - s;
	open = dso_open(s, end);
	fl->dso = open ? open + 1 : "";
	fl->dso_len = open ? (size_t)(end - 1 - open - 1) : 0;
	if (fl->dso_len >= sizeof(deleted) - 1 &&
	    !memcmp(fl->dso + fl->dso_len - sizeof(deleted) + 1, deleted, sizeof(deleted) - 1))
		fl->dso_len -= sizeof(deleted) - 1;
	fl->sym = open == s ? "[unknown]" : s;
	for (end = open && open > s ? open : end; end > s && is_space(end[-1]); end--)
		;
	fl->sym_len = open == s ? 9 : (size_t)(end - s);
	return true;
}

bool in_perf__is_frame(const char *line)
{
	struct frame_line fl;

	return is_space(line[0]) && parse_frame(line, line + strlen(line), &fl);
}

/* A frame line of old perf versions, not indented: "ADDR SYMBOL (DSO)",
 * its DSO required (else a line of words that begins with hex digits). */
static bool is_bare_frame(const char *line, struct frame_line *fl)
{
	return parse_frame(line, line + strlen(line), fl) && fl->dso_len;
}

bool in_perf__starts_record(const char *first, const char *second)
{
	struct frame_line fl;
	struct hdr h;

	return parse_header(first, &h) && h.event.len && is_bare_frame(second, &fl);
}

/* ---- naming a frame the way stackcollapse-perf.pl does ---- */

static bool is_dso(const char *dso, size_t len, const char *name)
{
	return len == strlen(name) && !memcmp(dso, name, len);
}

/* "[kernel.kallsyms]", "[kernel.*]", a module ("[nf_tables]") or vmlinux.
 * stackcollapse-perf.pl marks every DSO in brackets, but the pages the
 * kernel maps into a process ("[vdso]", "[vsyscall]", "[uprobes]") run user
 * code: flamebpf names vdso frames as user frames, and so does this. */
static bool is_kernel_dso(const char *dso, size_t len)
{
	static const char vmlinux[] = "vmlinux";
	size_t vl = sizeof(vmlinux) - 1;

	if (memmem(dso, len, "unknown", 7) || is_dso(dso, len, "[vdso]") ||
	    is_dso(dso, len, "[vsyscall]") || is_dso(dso, len, "[uprobes]"))
		return false;
	return (len && dso[0] == '[') || (len >= vl && !memcmp(dso + len - vl, vmlinux, vl));
}

/* Drops one trailing "+0x<lowercase hex>"; returns the offset. */
static uint64_t strip_offset(const char *s, size_t *len)
{
	size_t n = *len, h = 0;

	while (h < n && ((s[n - 1 - h] >= '0' && s[n - 1 - h] <= '9') ||
			 (s[n - 1 - h] >= 'a' && s[n - 1 - h] <= 'f')))
		h++;
	if (!h || h + 3 > n || memcmp(s + n - h - 3, "+0x", 3))
		return 0;
	*len = n - h - 3;
	return strtoull(s + n - h, NULL, 16);
}

/* Go methods ("net/http.(*Client).Do") keep their parentheses. */
static bool is_go_method(const char *s)
{
	const char *open = strstr(s, ".(");

	return open && strstr(open + 2, ").");
}

/* ';' becomes ':', arguments are cut ("(anonymous namespace)" stays), quotes go. */
static void tidy(char *s, bool java)
{
	char *w = s;

	for (char *p = s; *p; p++)
		if (*p == ';')
			*p = ':';
	if (!is_go_method(s))
		for (char *p = s; (p = strchr(p, '(')); p++)
			if (strncmp(p, "(anonymous namespace)", 21)) {
				*p = '\0';
				break;
			}
	for (char *p = s; *p; p++)
		if (*p != '"' && *p != '\'')
			*w++ = *p;
	*w = '\0';
	if (java && s[0] == 'L' && strchr(s, '/'))
		memmove(s, s + 1, strlen(s));
}

static const char *base_name(const char *dso, size_t len, size_t *blen)
{
	const char *slash = len ? memrchr(dso, '/', len) : NULL;

	*blen = slash ? (size_t)(dso + len - slash - 1) : len;
	return slash ? slash + 1 : dso;
}

static bool java_names(const struct perf *p)
{
	return p->r.java;
}

/* The name of one part of an inline chain, into p->name. */
static int part_name(struct perf *p, const char *s, size_t len, const struct frame_line *fl,
		     bool inlined)
{
	struct strbuf *b = &p->name;
	size_t blen;
	const char *base = base_name(fl->dso, fl->dso_len, &blen);
	int err;

	strbuf__reset(b);
	if (len == 9 && !memcmp(s, "[unknown]", 9) && fl->dso_len &&
	    strncmp(fl->dso, "[unknown]", fl->dso_len))
		err = strbuf__addf(b, "[%.*s]", (int)blen, base);
	else
		err = strbuf__add(b, s, len);
	if (err)
		return err;
	tidy(b->s, java_names(p));
	b->len = strlen(b->s);
	while (b->len > 1 && is_space(b->s[b->len - 1])) /* "f (int)", "f (/cut" */
		b->s[--b->len] = '\0';
	if (inlined && !strstr(b->s, "_[i]"))
		err = strbuf__add(b, "_[i]", 4);
	return err;
}

static int push_ids(struct record *r, const uint32_t *ids, size_t n)
{
	if (!n)
		return 0;
	if (array__reserve((void **)&r->frames, &r->cap, r->n + n, sizeof(*ids)))
		return -ENOMEM;
	memcpy(r->frames + r->n, ids, n * sizeof(*ids));
	r->n += n;
	return 0;
}

static int add_part(struct perf *p, const struct frame_line *fl, uint64_t off, bool inlined,
		    char *dso)
{
	bool kernel = !inlined && is_kernel_dso(fl->dso, fl->dso_len);
	bool keep = p->c->o->keep_addrs;
	size_t blen;
	const char *base = base_name(fl->dso, fl->dso_len, &blen);
	char module[256];
	struct frame f = { .name = p->name.s, .module = module, .dso = dso, .build_id = "" };
	uint32_t id;
	int err;

	snprintf(module, sizeof(module), "%.*s", (int)blen, base);
	if (kernel || !strcmp(module, "[unknown]"))
		strcpy(module, kernel ? "[kernel]" : "");
	f.kind = kernel ? FRAME_KERNEL : FRAME_USER;
	f.addr = keep ? fl->addr : 0;
	f.sym_off = keep ? off : 0;
	err = profile__findnew_frame_at(p->c->p, &f, &id);
	return err ? err : push_ids(&p->r, &id, 1);
}

/* One frame line: the parts of "a->b->c", pushed leaf first (c, b, a). */
static int add_frame(struct perf *p, const struct frame_line *fl)
{
	size_t len = fl->sym_len;
	uint64_t off = strip_offset(fl->sym, &len);
	char *dso = strndup(fl->dso, fl->dso_len);
	const char *end = fl->sym + len;
	int err = dso ? 0 : -ENOMEM;

	if (fl->sym[0] == '(') /* not a symbol: stackcollapse-perf.pl skips these */
		len = 0;
	while (len && !err) {
		const char *part = end, *arrow = NULL;

		for (const char *s = fl->sym; s + 1 < end; s++)
			if (s[0] == '-' && s[1] == '>')
				arrow = s;
		part = arrow ? arrow + 2 : fl->sym;
		err = part_name(p, part, end - part, fl, arrow != NULL);
		if (!err)
			err = add_part(p, fl, off, arrow != NULL, dso);
		end = arrow ? arrow : fl->sym;
		len = end - fl->sym;
	}
	free(dso);
	return err;
}

/* ---- the frame cache ---- */

static const uint32_t *cached_ids(const struct cached *e)
{
	return (const uint32_t *)(e + 1);
}

static const char *cached_text(const struct cached *e)
{
	return (const char *)(cached_ids(e) + e->n);
}

/* Pushes the frames of the arena record at off when it is the line's. */
static bool cache_hit_at(struct perf *p, const struct frame_line *fl, uint64_t off, int *err)
{
	const struct cached *e = (const struct cached *)(p->cache.arena + off);

	if (e->len != fl->rest_len || e->java != java_names(p) ||
	    memcmp(cached_text(e), fl->rest, e->len))
		return false;
	*err = push_ids(&p->r, cached_ids(e), e->n);
	return true;
}

/* Pushes the frames cached for the line; false when there are none. */
static bool cache_hit(struct perf *p, const struct frame_line *fl, uint64_t h, int *err)
{
	uint64_t off;

	return hashmap__get(&p->cache.idx, h, &off) && cache_hit_at(p, fl, off, err);
}

/* Remembers the frames pushed from n0 on for the line. */
static int cache_add(struct perf *p, const struct frame_line *fl, uint64_t h, size_t n0)
{
	struct frame_cache *fc = &p->cache;
	struct cached e = { .len = fl->rest_len, .n = p->r.n - n0, .java = java_names(p) };
	size_t size = sizeof(e) + e.n * sizeof(uint32_t) + e.len, off = fc->used;

	if (hashmap__get(&fc->idx, h, &(uint64_t){ 0 }))
		return 0; /* a hash shared by two texts: the second is not cached */
	size = (size + _Alignof(struct cached) - 1) & ~(_Alignof(struct cached) - 1);
	if (array__reserve((void **)&fc->arena, &fc->cap, off + size, 1))
		return -ENOMEM;
	memcpy(fc->arena + off, &e, sizeof(e));
	if (e.n)
		memcpy(fc->arena + off + sizeof(e), p->r.frames + n0, e.n * sizeof(uint32_t));
	memcpy(fc->arena + off + sizeof(e) + e.n * sizeof(uint32_t), fl->rest, e.len);
	fc->used += size;
	return hashmap__set(&fc->idx, h, off);
}

static uint64_t line_hash(const struct perf *p, const struct frame_line *fl)
{
	return hash_bytes(fl->rest, fl->rest_len, java_names(p));
}

/* The frames of a line whose text hashes to h. */
static int push_frame_hashed(struct perf *p, const struct frame_line *fl, uint64_t h)
{
	size_t n0 = p->r.n;
	int err;

	if (cache_hit(p, fl, h, &err))
		return err;
	err = add_frame(p, fl);
	return err ? err : cache_add(p, fl, h, n0);
}

static int push_frame(struct perf *p, const struct frame_line *fl)
{
	if (p->c->o->keep_addrs)
		return add_frame(p, fl);
	return push_frame_hashed(p, fl, line_hash(p, fl));
}

/* ---- frame lines in batches ---- */

#define BATCH 32

/* The frame lines that follow in what the reader read ahead, named in three
 * passes so that their lookups wait for memory together, not one after the
 * other: each line is hashed and its table slot fetched, then the arena
 * records the slots point to, then the frames are pushed. */
struct batch {
	struct frame_line fl[BATCH];
	uint64_t h[BATCH], off[BATCH];
	bool found[BATCH];
	size_t n;
};

/* The whole frame lines at the start of s, up to BATCH: anything else (a
 * blank line, a header, a line cut by the end of what was read) ends the
 * batch, and is read the usual way. Returns the bytes they take. */
static size_t batch_parse(struct perf *p, struct batch *b, char *s, size_t len)
{
	char *start = s, *end = s + len;

	for (b->n = 0; b->n < BATCH && s < end && is_space(*s); b->n++) {
		char *nl = memchr(s, '\n', end - s), *e;

		if (!nl)
			break;
		e = nl > s && nl[-1] == '\r' ? nl - 1 : nl;
		if (!parse_frame(s, e, &b->fl[b->n])) /* a blank line too */
			break;
		*e = '\0';
		b->h[b->n] = line_hash(p, &b->fl[b->n]);
		hashmap__prefetch(&p->cache.idx, b->h[b->n]);
		s = nl + 1;
	}
	return s - start;
}

static int batch_push(struct perf *p, struct batch *b)
{
	int err = 0;

	for (size_t k = 0; k < b->n; k++) {
		b->found[k] = hashmap__get(&p->cache.idx, b->h[k], &b->off[k]);
		if (b->found[k]) {
			__builtin_prefetch(p->cache.arena + b->off[k]);
			__builtin_prefetch(p->cache.arena + b->off[k] + 64);
		}
	}
	for (size_t k = 0; k < b->n && !err; k++)
		if (!b->found[k] || !cache_hit_at(p, &b->fl[k], b->off[k], &err))
			err = push_frame_hashed(p, &b->fl[k], b->h[k]);
	return err;
}

/* After a frame line of a record being kept: the frame lines after it. The
 * first line of a record is not taken here: it may be the header of perf's
 * layout without call graphs, which starts with blanks too. */
static int frame_lines(struct perf *p)
{
	struct batch b;
	size_t len, used;
	char *s;
	int err;

	if (!p->r.open || !p->r.n || p->r.one_line || p->r.skip || p->c->o->keep_addrs)
		return 0;
	do {
		len = in__unread(p->c, &s);
		used = batch_parse(p, &b, s, len);
		in__take(p->c, used, b.n);
		err = batch_push(p, &b);
	} while (!err && b.n == BATCH);
	return err ? in__fail_errno(p->c, err) : 0;
}

static void cache_free(struct frame_cache *fc)
{
	free(fc->arena);
	hashmap__free(&fc->idx);
}

/* ---- records ---- */

static bool is_clock(const char *event)
{
	return !strncmp(event, "cpu-clock", 9) || !strncmp(event, "task-clock", 10);
}

static bool token_is(const struct token *t, const char *s)
{
	return t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

static bool token_is_clock(const struct token *t)
{
	return token_is(t, "cpu-clock") || token_is(t, "task-clock");
}

/* flamebpf --alloc's records: each period is an allocation's bytes. */
static bool is_memory(const struct token *event)
{
	return token_is(event, "bytes-allocated") || token_is(event, "bytes-live");
}

/* Whether the record's period is its length: a clock's sample, a block. */
static bool timed(const struct perf *p, const struct hdr *h)
{
	if (!h->period)
		return false;
	if (h->event.len)
		return token_is_clock(&h->event) || token_is(&h->event, OFFCPU_EVENT);
	return p->event && is_clock(p->event);
}

/* A probe's hit: an instant event with its arguments. Returns 0 or -ENOMEM. */
static int hit_args(struct perf *p, const struct hdr *h, struct profile_event *ev)
{
	int err = 0;

	for (int k = 0; k < PROFILE_NARGS && !err; k++)
		err = profile__set_hit_arg(p->c->p, ev, k, h->args[k], h->is_signed & (1u << k),
					   h->is_str & (1u << k) ? h->str[k] : NULL);
	return err;
}

static int push_event(struct perf *p, uint32_t stack)
{
	const struct hdr *h = &p->r.h;
	struct pending e = { .pid = h->pid, .tid = h->tid };

	e.ev = (struct profile_event){ .stack = stack, .cpu = h->cpu, .ts = h->ts };
	e.timed = timed(p, h);
	e.ev.dur = e.timed ? h->period : 0;
	/* a hit is a moment, as a capture gives it, not the time until the
	 * next one, whose order a tie would then reverse */
	if (h->hit) {
		if (hit_args(p, h, &e.ev))
			return -ENOMEM;
		e.timed = true;
		e.ev.dur = PROFILE_HIT_DUR_NS;
	}
	return array__push((void **)&p->ev, &p->nev, &p->evcap, &e, sizeof(e));
}

/* The periods by stack, which the weights become if the file turns out
 * to be time off the CPU. */
static int add_ns(struct perf *p, uint32_t stack, const struct hdr *h)
{
	size_t n = (size_t)stack + 1;

	if (n > p->nns) {
		if (array__reserve((void **)&p->ns, &p->nscap, n, sizeof(*p->ns)))
			return -ENOMEM;
		memset(p->ns + p->nns, 0, (n - p->nns) * sizeof(*p->ns));
		p->nns = n;
	}
	p->ns[stack] += h->period;
	p->offcpu = p->offcpu || token_is(&h->event, OFFCPU_EVENT);
	p->clock = p->clock || token_is_clock(&h->event);
	return 0;
}

/* A file of offcpu-time records: every record weighs its period, in ns. */
static void as_time(struct perf *p)
{
	struct profile *prof = p->c->p;

	profile__set_unit(prof, UNIT_NANOSECONDS);
	for (size_t i = 0; i < profile__nr_stacks(prof); i++)
		profile__set_weight(prof, i, i < p->nns ? p->ns[i] : 0,
				    profile__stack(prof, i)->count);
}

static int finish(struct perf *p)
{
	struct record *r = &p->r;
	bool ids = p->c->o->keep_ids;
	struct stack_owner who = { ids ? r->h.pid : 0, ids ? r->h.tid : 0, r->root.s, r->comm.s };
	uint64_t weight;
	int err = 0;

	r->open = false;
	if (r->skip)
		return 0;
	for (size_t i = 0; i < r->n / 2; i++) {
		uint32_t t = r->frames[i];

		r->frames[i] = r->frames[r->n - 1 - i];
		r->frames[r->n - 1 - i] = t;
	}
	/* a sample weighs 1; with --period its period, where a period of 0,
	 * or none, weighs 1 as in stackcollapse-perf.pl; an allocation
	 * (flamebpf --alloc) its bytes, always. The stack's count is the
	 * number of samples either way. */
	weight = (p->c->o->period || is_memory(&r->h.event)) && r->h.period ? r->h.period : 1;
	err = profile__add_stack_count(p->c->p, &who, r->frames, r->n, weight, 1);
	if (!err)
		err = add_ns(p, profile__last_stack(p->c->p), &r->h);
	if (!err && p->c->o->keep_events)
		err = push_event(p, profile__last_stack(p->c->p));
	return err ? in__fail_errno(p->c, err) : 0;
}

/* The event kept: --event's (without a trailing ':'), else the first one
 * seen. */
static int choose_event(struct perf *p)
{
	const char *want = p->c->o->event;
	size_t len = want ? strlen(want) : p->r.h.event.len;

	if (want && len && want[len - 1] == ':')
		len--;
	p->event = strndup(want ? want : p->r.h.event.s, len);
	if (!p->event)
		return -ENOMEM;
	snprintf(p->c->st->event, sizeof(p->c->st->event), "%s", p->event);
	return 0;
}

/* Whether t is a traced call's event, flamebpf's PERF_CALL_EVENT or an
 * earlier flamebpf's "uprobe:FUNC". */
static bool is_call_event(const struct token *t)
{
	size_t n = strlen(PERF_CALL_EVENT_PREFIX);

	return t->len > n && !memcmp(t->s, PERF_CALL_EVENT_PREFIX, n);
}

/* Blocks off the CPU and a clock's samples are both time, in ns, and so are
 * traced calls, whatever their function: kept together unless --event
 * chose one. */
static bool time_pair(const struct perf *p, const struct token *t)
{
	struct token kept = { p->event, strlen(p->event) };

	if (p->c->o->event)
		return false;
	return (token_is(&kept, OFFCPU_EVENT) && token_is_clock(t)) ||
	       (token_is_clock(&kept) && token_is(t, OFFCPU_EVENT)) ||
	       (is_call_event(&kept) && is_call_event(t));
}

/* Only the records of one event are kept: mixing cycles with
 * instructions, say, would make a graph that means neither. */
static int filter_event(struct perf *p)
{
	struct record *r = &p->r;
	struct reader_stats *st = p->c->st;
	char *ev;

	if (!r->h.event.len)
		return 0;
	if (!p->event && choose_event(p))
		return -ENOMEM;
	if (token_is(&r->h.event, p->event) || time_pair(p, &r->h.event))
		return 0;
	r->skip = true;
	if (!st->other_events++) {
		ev = st->other_event;
		snprintf(ev, sizeof(st->other_event), "%.*s", (int)r->h.event.len, r->h.event.s);
	}
	return 0;
}

static int check_header(struct perf *p)
{
	struct in_ctx *c = p->c;
	const struct hdr *h = &p->r.h;

	/* its root is COMM-? then, as stackcollapse-perf.pl writes it */
	c->st->no_pid += c->o->ids_in_root && !h->has_pid;
	if (c->o->keep_events && !c->o->untimed_events && !h->has_ts)
		return in__fail(c, c->line,
				"the record has no time, which a timeline output needs "
				"(perf script -F +time prints it)");
	return 0;
}

static int start_record(struct perf *p, const struct hdr *h)
{
	struct record *r = &p->r;
	int err;

	r->open = true;
	r->skip = false;
	r->one_line = false;
	r->line = p->c->line;
	r->h = *h;
	r->n = 0;
	strbuf__reset(&r->comm);
	strbuf__reset(&r->root);
	strbuf__reset(&r->event);
	if (strbuf__add(&r->comm, h->comm, h->comm_len) ||
	    strbuf__add(&r->root, h->comm, h->comm_len) ||
	    strbuf__add(&r->event, h->event.s ? h->event.s : "", h->event.len))
		return -ENOMEM;
	r->h.event.s = r->event.s ? r->event.s : "";
	for (char *s = r->root.s; *s; s++)
		if (*s == ' ' || *s == '\t')
			*s = '_';
	r->java = !p->c->o->ids_in_root && !strcmp(r->root.s, "java");
	err = check_header(p);
	if (!err)
		err = filter_event(p);
	if (!err && h->has_ts) {
		if (!p->first_ts || h->ts < p->first_ts)
			p->first_ts = h->ts;
		if (h->ts > p->last_ts)
			p->last_ts = h->ts;
	}
	return err;
}

/* A header line; on a record of one line, its frame follows the event. */
static int header(struct perf *p, const struct hdr *h)
{
	struct frame_line fl;
	int err;

	if (!strncmp(h->event.len ? h->event.s : h->rest, "PERF_RECORD_", 12))
		return 0; /* --show-mmap-events and the like: no sample */
	if (p->r.open) {
		/* no empty line between records: perf ran without call graphs */
		p->single_line = true;
		err = finish(p);
		if (err)
			return err;
	}
	err = start_record(p, h);
	if (err)
		return err == -ENOMEM ? in__fail_errno(p->c, err) : err;
	p->c->st->records++;
	if (!*h->rest || !parse_frame(h->rest, h->rest + strlen(h->rest), &fl))
		return 0;
	/* its callers may follow (perf script -F ip,sym with a call graph) */
	p->r.one_line = true;
	err = p->r.skip ? 0 : push_frame(p, &fl);
	return err ? in__fail_errno(p->c, err) : 0;
}

/* ---- the `#` header of `perf script --header` ---- */

static void comment(struct perf *p, const char *line)
{
	static const char *const keys[] = { "os release", "nrcpus online", "cmdline" };
	const char *colon = strchr(line, ':');

	if (!colon || line[1] != ' ')
		return;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t kl = strlen(keys[i]);

		if (!strncmp(line + 2, keys[i], kl) && !p->meta[i])
			p->meta[i] = strdup(colon + 1 + strspn(colon + 1, " "));
	}
}

static int set_meta(struct perf *p)
{
	struct profile_meta m = { .cmdline = p->meta[2], .event = p->event, .kernel = p->meta[0] };

	if (p->offcpu)
		m.event = p->clock ? PROFILE_EVENT_WALL : PROFILE_EVENT_OFFCPU;

	/* no frequency: perf script does not print the rate it sampled at */
	m.ncpus = p->meta[1] ? strtoul(p->meta[1], NULL, 10) : 0;
	m.secs = p->last_ts > p->first_ts ? (p->last_ts - p->first_ts) / 1e9 : 0;
	p->c->st->first_ts = p->first_ts;
	p->c->st->last_ts = p->last_ts;
	return profile__set_meta(p->c->p, &m);
}

/* ---- events ---- */

static int cmp_thread_time(const void *a, const void *b)
{
	const struct pending *x = *(const struct pending *const *)a;
	const struct pending *y = *(const struct pending *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->ev.ts > y->ev.ts) - (x->ev.ts < y->ev.ts);
}

/* A sample of an event that is no clock (cycles, faults) lasts until the
 * thread's next sample, at most MAX_GAP_NS; a thread's last one as long as
 * the one before it. */
static int fill_durations(struct perf *p)
{
	struct pending **order = malloc((p->nev ? p->nev : 1) * sizeof(*order));
	uint64_t prev = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < p->nev; i++)
		order[i] = &p->ev[i];
	qsort(order, p->nev, sizeof(*order), cmp_thread_time);
	for (size_t i = 0; i < p->nev; i++) {
		struct pending *e = order[i], *next = i + 1 < p->nev ? order[i + 1] : NULL;

		if (!i || order[i - 1]->pid != e->pid || order[i - 1]->tid != e->tid)
			prev = MAX_GAP_NS / 10; /* a thread's only sample: 1 ms */
		if (next && (next->pid != e->pid || next->tid != e->tid))
			next = NULL;
		if (next)
			prev = next->ev.ts - e->ev.ts < MAX_GAP_NS ? next->ev.ts - e->ev.ts
								   : MAX_GAP_NS;
		if (!e->timed)
			e->ev.dur = prev;
	}
	free(order);
	return 0;
}

static int add_events(struct perf *p)
{
	int err = fill_durations(p);

	for (size_t i = 0; i < p->nev && !err; i++)
		err = profile__add_stack_event(p->c->p, &p->ev[i].ev);
	return err;
}

/* ---- the lines ---- */

static int skip_line(struct perf *p)
{
	return in__skip_line(p->c, "neither '\\tADDRESS SYMBOL (DSO)' nor a header");
}

/* The line perf script -F +srcline prints under a frame: blanks, then one
 * word, FILE:LINE or DSO[OFFSET] ("  cpu_tree.c:44", "  libc.so.6[2724a]"). */
static bool is_srcline(const char *s, size_t len)
{
	size_t lead = strspn(s, " "), word;

	if (!lead || lead == len)
		return false;
	word = strcspn(s + lead, " \t");
	if (lead + word != len)
		return false;
	if (s[len - 1] == ']')
		return memchr(s + lead, '[', word) != NULL;
	while (len > lead && isdigit((unsigned char)s[len - 1]))
		len--;
	return len < lead + word && len > lead && s[len - 1] == ':';
}

static int frame_line(struct perf *p, const char *line, size_t len)
{
	struct frame_line fl;
	int err;

	if (!parse_frame(line, line + len, &fl)) {
		if (!p->r.n || !is_srcline(line, len))
			return skip_line(p);
		p->c->st->srclines++;
		return 0;
	}
	if (p->r.skip)
		return 0;
	err = push_frame(p, &fl);
	return err ? in__fail_errno(p->c, err) : 0;
}

static int other_line(struct perf *p, const char *line)
{
	struct frame_line fl;
	struct hdr h;

	if (parse_header(line, &h))
		return header(p, &h);
	if (p->r.open && is_bare_frame(line, &fl))
		return frame_line(p, line, strlen(line));
	/* a frame line outside a record (after an empty line inside one), or
	 * a line of something else */
	return skip_line(p);
}

/* A line that starts with blanks, in a record: a frame line; but a header
 * of the layout without call graphs (COMM right-aligned) starts so too. */
static bool is_frame_of(const struct perf *p, const char *s)
{
	return (p->r.n && !p->r.one_line) || !in_perf__is_header(s);
}

static int line(struct perf *p, const char *s, size_t len)
{
	if (s[0] == '#') {
		if (!p->r.open)
			comment(p, s);
		return 0;
	}
	if (strspn(s, " \t") == len)
		return p->r.open ? finish(p) : 0;
	if (p->r.open && is_space(s[0]) && is_frame_of(p, s)) {
		/* the file's last line, cut short before its DSO's ')': what
		 * it names may be cut too ("pvm_irq_enable+0x19 ([kerne" read
		 * as a user frame) */
		if (!p->c->last_had_newline && s[len - 1] != ')') {
			p->c->st->cut_frame = true;
			return 0;
		}
		return frame_line(p, s, len);
	}
	return other_line(p, s);
}

/* A file cut short (by head, or written by a tool that does not close the
 * last record) still counts its last record, as the peers do. */
static int end(struct perf *p)
{
	struct in_ctx *c = p->c;
	int err;

	c->st->cut_short = c->line && !c->last_had_newline;
	if (p->r.open) {
		c->st->unclosed = !p->single_line && !p->r.one_line;
		err = finish(p);
		if (err)
			return err;
	}
	if (c->o->event && c->st->other_events == c->st->records && c->st->records)
		return in__fail_at(c, -ENODATA,
				   "no records of event '%s' in it (one of its events: "
				   "'%s')",
				   p->event, c->st->other_event);
	return 0;
}

static void perf_free(struct perf *p)
{
	strbuf__free(&p->r.comm);
	strbuf__free(&p->r.event);
	strbuf__free(&p->r.root);
	strbuf__free(&p->name);
	free(p->r.frames);
	free(p->event);
	free(p->ev);
	free(p->ns);
	for (size_t i = 0; i < sizeof(p->meta) / sizeof(p->meta[0]); i++)
		free(p->meta[i]);
	cache_free(&p->cache);
}

int in_perf__read(struct in_ctx *c)
{
	struct perf p = { .c = c };
	ssize_t n = 0;
	int err = 0;

	while (!err && (n = in__getline(c)) >= 0) {
		err = line(&p, c->buf, n);
		if (!err)
			err = frame_lines(&p);
	}
	if (!err && n < -1)
		err = n;
	if (!err)
		err = end(&p);
	if (!err && p.offcpu)
		as_time(&p);
	if (!err)
		err = set_meta(&p);
	if (!err)
		err = add_events(&p);
	if (err == -ENOMEM)
		err = in__fail_errno(c, err);
	perf_free(&p);
	return err;
}
