// SPDX-License-Identifier: GPL-2.0
/*
 * regex -> tree (parse) -> Thompson NFA over bytes (bounds expanded, anchors
 * kept as assertions, an implicit leading .* for search) -> DFA by subset
 * construction over the byte classes the regex distinguishes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "regex_dfa.h"

#define DUP_MAX	  255  /* RE_DUP_MAX of POSIX */
#define NFA_MAX	  8192 /* nodes after expanding bounds */
#define DEPTH_MAX 64   /* nested groups */
#define REGEX_MAX 4096 /* bytes: bounds the recursion of parse and build */
#define UNBOUNDED (-1)

struct bset {
	uint64_t w[4];
};

enum ast_type { A_EMPTY, A_SET, A_CAT, A_ALT, A_REP, A_BOL, A_EOL };

struct ast {
	enum ast_type type;
	int kid, sib; /* first child, next sibling; -1 for none */
	int min, max; /* A_REP */
	struct bset set;
};

struct parser {
	const char *p;
	struct ast *nodes;
	size_t cap;
	int n, depth;
	char *err;
	size_t errlen;
};

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

#define PFAIL(ps, ...) fail((ps)->err, (ps)->errlen, -EINVAL, __VA_ARGS__)

static void bset_add(struct bset *s, unsigned int c)
{
	s->w[c >> 6] |= 1ULL << (c & 63);
}

static bool bset_has(const struct bset *s, unsigned int c)
{
	return s->w[c >> 6] >> (c & 63) & 1;
}

static int ast_new(struct parser *ps, enum ast_type type)
{
	struct ast *a;

	if (array__reserve((void **)&ps->nodes, &ps->cap, ps->n + 1, sizeof(*a)))
		return fail(ps->err, ps->errlen, -ENOMEM, "out of memory");
	a = &ps->nodes[ps->n];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->kid = a->sib = -1;
	return ps->n++;
}

static int ast_byte(struct parser *ps, unsigned char c)
{
	int a = ast_new(ps, A_SET);

	if (a >= 0)
		bset_add(&ps->nodes[a].set, c);
	return a;
}

/* The POSIX classes in the C locale, whatever locale the process set. */
static bool in_class(const char *name, int c)
{
	bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
	bool digit = c >= '0' && c <= '9', graph = c > 32 && c < 127;

	if (!strcmp(name, "alpha"))
		return upper || lower;
	if (!strcmp(name, "digit"))
		return digit;
	if (!strcmp(name, "alnum"))
		return upper || lower || digit;
	if (!strcmp(name, "upper"))
		return upper;
	if (!strcmp(name, "lower"))
		return lower;
	if (!strcmp(name, "space"))
		return c == ' ' || (c >= '\t' && c <= '\r');
	if (!strcmp(name, "blank"))
		return c == ' ' || c == '\t';
	if (!strcmp(name, "punct"))
		return graph && !upper && !lower && !digit;
	if (!strcmp(name, "graph"))
		return graph;
	if (!strcmp(name, "print"))
		return graph || c == ' ';
	if (!strcmp(name, "cntrl"))
		return c < 32 || c == 127;
	return digit || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); /* xdigit */
}

static const char *const class_names[] = { "alpha", "digit", "alnum", "upper", "lower", "space",
					   "blank", "punct", "graph", "print", "cntrl", "xdigit" };

/* At "[:name:]" inside a bracket expression. */
static int parse_class(struct parser *ps, struct bset *set)
{
	const char *name = ps->p + 2, *end = strstr(name, ":]");
	char buf[16];
	size_t len;

	if (!end)
		return PFAIL(ps, "unmatched '[:' in a bracket expression");
	len = end - name;
	if (len >= sizeof(buf))
		return PFAIL(ps, "unknown character class '[:%.*s:]'", (int)len, name);
	memcpy(buf, name, len);
	buf[len] = 0;
	for (size_t i = 0; i < sizeof(class_names) / sizeof(class_names[0]); i++) {
		if (strcmp(buf, class_names[i]))
			continue;
		for (int c = 0; c < 256; c++)
			if (in_class(buf, c))
				bset_add(set, c);
		ps->p = end + 2;
		return 0;
	}
	return PFAIL(ps, "unknown character class '[:%s:]'", buf);
}

/* One item at ps->p: a class, a byte, or a range; first: just after '[' or "[^". */
static int parse_bracket_item(struct parser *ps, struct bset *set, bool first)
{
	const unsigned char *p = (const unsigned char *)ps->p;
	unsigned int lo = p[0], hi;

	if (lo == '[' && p[1] == ':') {
		int err = parse_class(ps, set);

		if (!err && ps->p[0] == '-' && ps->p[1] != ']')
			return PFAIL(ps, "a range from a character class");
		return err;
	}
	if (lo == '[' && (p[1] == '.' || p[1] == '='))
		return PFAIL(ps, "'[%c' (collating element or equivalence class) is not supported",
			     p[1]);
	if (p[1] != '-' || p[2] == ']' || !p[2] || (lo == '-' && first)) {
		bset_add(set, lo);
		ps->p++;
		return 0;
	}
	hi = p[2];
	if (hi == '[' && (p[3] == '.' || p[3] == '=' || p[3] == ':'))
		return PFAIL(ps, "a range ending in '[%c' is not supported", p[3]);
	if (hi < lo)
		return PFAIL(ps, "invalid range '%c-%c' in a bracket expression", lo, hi);
	for (unsigned int c = lo; c <= hi; c++)
		bset_add(set, c);
	ps->p += 3;
	if (ps->p[0] == '-' && ps->p[1] != ']')
		return PFAIL(ps, "'-' after the range '%c-%c' in a bracket expression", lo, hi);
	return 0;
}

/* At the '['. */
static int parse_bracket(struct parser *ps)
{
	struct bset set = { { 0 } };
	bool neg, first = true;
	int a, err;

	neg = *++ps->p == '^';
	ps->p += neg;
	for (;;) {
		if (!*ps->p)
			return PFAIL(ps, "unmatched '['");
		if (*ps->p == ']' && !first)
			break;
		err = parse_bracket_item(ps, &set, first);
		if (err)
			return err;
		first = false;
	}
	ps->p++;
	a = ast_new(ps, A_SET);
	if (a < 0)
		return a;
	for (int i = 0; i < 4; i++)
		ps->nodes[a].set.w[i] = neg ? ~set.w[i] : set.w[i];
	return a;
}

/* At the '\'. */
static int parse_escape(struct parser *ps)
{
	unsigned char c = *++ps->p;
	bool alnum = (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');

	if (!c)
		return PFAIL(ps, "trailing '\\'");
	if (c >= '1' && c <= '9')
		return PFAIL(ps, "backreference '\\%c' is not supported", c);
	if (alnum)
		return PFAIL(ps, "escape '\\%c' is not supported", c);
	ps->p++;
	return ast_byte(ps, c);
}

static int parse_alt(struct parser *ps);

/* At the '('. */
static int parse_group(struct parser *ps)
{
	int a;

	if (++ps->depth > DEPTH_MAX)
		return PFAIL(ps, "groups nested more than %d deep", DEPTH_MAX);
	ps->p++;
	a = parse_alt(ps);
	if (a < 0)
		return a;
	if (*ps->p != ')')
		return PFAIL(ps, "unmatched '('");
	ps->p++;
	ps->depth--;
	return a;
}

static int parse_atom(struct parser *ps)
{
	unsigned char c = *ps->p;
	int a;

	switch (c) {
	case '(':
		return parse_group(ps);
	case '[':
		return parse_bracket(ps);
	case '\\':
		return parse_escape(ps);
	case '*':
	case '+':
	case '?':
	case '{':
		return PFAIL(ps, "repetition '%c' follows nothing", c);
	case '^':
	case '$':
	case '.':
		a = ast_new(ps, c == '^' ? A_BOL : c == '$' ? A_EOL : A_SET);
		if (a >= 0 && c == '.')
			memset(&ps->nodes[a].set, 0xff, sizeof(struct bset));
		ps->p++;
		return a;
	default:
		ps->p++;
		return ast_byte(ps, c);
	}
}

static int parse_number(struct parser *ps)
{
	int n = 0;

	if (*ps->p < '0' || *ps->p > '9')
		return -1;
	while (*ps->p >= '0' && *ps->p <= '9') {
		n = n * 10 + (*ps->p++ - '0');
		if (n > DUP_MAX)
			return DUP_MAX + 1;
	}
	return n;
}

/* At the '{': sets min and max. */
static int parse_bound(struct parser *ps, int *min, int *max)
{
	ps->p++;
	*min = *max = parse_number(ps);
	if (*min < 0)
		return PFAIL(ps, "'{' not followed by a repetition count");
	if (*ps->p == ',') {
		ps->p++;
		*max = *ps->p == '}' ? UNBOUNDED : parse_number(ps);
	}
	if (*ps->p != '}')
		return PFAIL(ps, "unmatched '{' or a bad repetition count");
	ps->p++;
	if (*min > DUP_MAX || *max > DUP_MAX)
		return PFAIL(ps, "repetition count above %d", DUP_MAX);
	if (*max != UNBOUNDED && *max < *min)
		return PFAIL(ps, "repetition '{%d,%d}' has its maximum below its minimum", *min,
			     *max);
	return 0;
}

static int parse_piece(struct parser *ps)
{
	int a = parse_atom(ps), rep, min, max, err;

	while (a >= 0 && *ps->p && strchr("*+?{", *ps->p)) {
		if (ps->nodes[a].type == A_BOL || ps->nodes[a].type == A_EOL)
			return PFAIL(ps, "repetition '%c' of an anchor", *ps->p);
		min = *ps->p == '+';
		max = *ps->p == '?' ? 1 : UNBOUNDED;
		if (*ps->p == '{') {
			err = parse_bound(ps, &min, &max);
			if (err)
				return err;
		} else {
			ps->p++;
		}
		rep = ast_new(ps, A_REP);
		if (rep < 0)
			return rep;
		ps->nodes[rep].kid = a;
		ps->nodes[rep].min = min;
		ps->nodes[rep].max = max;
		a = rep;
	}
	return a;
}

static bool branch_ends(const struct parser *ps)
{
	return !*ps->p || *ps->p == '|' || *ps->p == ')';
}

/* Appends a (or returns its error) to the children of list. */
static int ast_append(struct parser *ps, int list, int *last, int a)
{
	if (a < 0)
		return a;
	if (*last < 0)
		ps->nodes[list].kid = a;
	else
		ps->nodes[*last].sib = a;
	*last = a;
	return 0;
}

static int parse_branch(struct parser *ps)
{
	int cat, last = -1, err;

	if (branch_ends(ps))
		return ast_new(ps, A_EMPTY);
	cat = ast_new(ps, A_CAT);
	while (cat >= 0 && !branch_ends(ps)) {
		err = ast_append(ps, cat, &last, parse_piece(ps));
		if (err)
			return err;
	}
	return cat;
}

static int parse_alt(struct parser *ps)
{
	int alt = ast_new(ps, A_ALT), last = -1, err;

	if (alt < 0)
		return alt;
	for (;;) {
		err = ast_append(ps, alt, &last, parse_branch(ps));
		if (err)
			return err;
		if (*ps->p != '|')
			return alt;
		ps->p++;
	}
}

enum nfa_type { N_SET, N_SPLIT, N_BOL, N_EOL, N_MATCH };

struct nfa_node {
	enum nfa_type type;
	int out0, out1; /* -1 for none */
	int ast;	/* N_SET: the tree node holding its bytes */
};

struct compiler {
	const struct ast *ast;
	struct nfa_node *nfa;
	size_t cap;
	int n, start, match;
	char *err;
	size_t errlen;
	/* subset construction: a set of NFA nodes per DFA state */
	size_t nwords;
	uint64_t *sets, *hashes, *step_set, *end_set;
	int *stack;
	unsigned char rep[DFA_MAX_CLASSES]; /* a byte of each class */
};

static int nfa_new(struct compiler *c, enum nfa_type type, int out0, int out1, int ast)
{
	if (c->n == NFA_MAX)
		return fail(c->err, c->errlen, -E2BIG,
			    "the regex expands to more than %d NFA nodes", NFA_MAX);
	if (array__reserve((void **)&c->nfa, &c->cap, c->n + 1, sizeof(*c->nfa)))
		return fail(c->err, c->errlen, -ENOMEM, "out of memory");
	c->nfa[c->n] = (struct nfa_node){ type, out0, out1, ast };
	return c->n++;
}

static int build(struct compiler *c, int a, int next);

/* Thompson's construction backwards: each part is built knowing what follows. */
static int build_cat(struct compiler *c, int kid, int next)
{
	if (kid < 0)
		return next;
	next = build_cat(c, c->ast[kid].sib, next);
	return next < 0 ? next : build(c, kid, next);
}

static int build_alt(struct compiler *c, int kid, int next)
{
	int left, right;

	if (c->ast[kid].sib < 0)
		return build(c, kid, next);
	left = build(c, kid, next);
	if (left < 0)
		return left;
	right = build_alt(c, c->ast[kid].sib, next);
	return right < 0 ? right : nfa_new(c, N_SPLIT, left, right, -1);
}

static int build_star(struct compiler *c, int kid, int next)
{
	int split = nfa_new(c, N_SPLIT, -1, next, -1), body;

	if (split < 0)
		return split;
	body = build(c, kid, split);
	if (body < 0)
		return body;
	c->nfa[split].out0 = body;
	return split;
}

/* x{2,4} as xx(x(x)?)?, x{2,} as xxx*. */
static int build_rep(struct compiler *c, const struct ast *a, int next)
{
	int tail = next, body;

	if (a->max == UNBOUNDED)
		tail = build_star(c, a->kid, next);
	for (int i = a->min; i < a->max && tail >= 0; i++) {
		body = build(c, a->kid, tail);
		tail = body < 0 ? body : nfa_new(c, N_SPLIT, body, tail, -1);
	}
	for (int i = 0; i < a->min && tail >= 0; i++)
		tail = build(c, a->kid, tail);
	return tail;
}

static int build(struct compiler *c, int a, int next)
{
	const struct ast *node = &c->ast[a];

	switch (node->type) {
	case A_EMPTY:
		return next;
	case A_SET:
		return nfa_new(c, N_SET, next, -1, a);
	case A_BOL:
		return nfa_new(c, N_BOL, next, -1, -1);
	case A_EOL:
		return nfa_new(c, N_EOL, next, -1, -1);
	case A_CAT:
		return build_cat(c, node->kid, next);
	case A_ALT:
		return build_alt(c, node->kid, next);
	default:
		return build_rep(c, node, next);
	}
}

/* The regex after a loop over any byte: a match may start anywhere. */
static int build_nfa(struct compiler *c, int root, int any)
{
	int body, loop, skip;

	c->match = nfa_new(c, N_MATCH, -1, -1, -1);
	if (c->match < 0)
		return c->match;
	body = build(c, root, c->match);
	if (body < 0)
		return body;
	loop = nfa_new(c, N_SPLIT, -1, body, -1);
	if (loop < 0)
		return loop;
	skip = nfa_new(c, N_SET, loop, -1, any);
	if (skip < 0)
		return skip;
	c->nfa[loop].out0 = skip;
	c->start = loop;
	return 0;
}

/* Bytes that every byte set of the NFA takes or leaves together share a class. */
static int byte_classes(struct compiler *c, struct dfa *d)
{
	int remap[512], ncls = 1, k;

	memset(d->cls, 0, sizeof(d->cls));
	for (int i = 0; i < c->n; i++) {
		const struct bset *s;

		if (c->nfa[i].type != N_SET)
			continue;
		s = &c->ast[c->nfa[i].ast].set;
		memset(remap, -1, sizeof(remap));
		k = 0;
		for (int b = 0; b < 256; b++) {
			int key = d->cls[b] * 2 + bset_has(s, b);

			if (remap[key] < 0)
				remap[key] = k++;
			d->cls[b] = remap[key];
		}
		ncls = k;
		if (ncls > DFA_MAX_CLASSES)
			return fail(c->err, c->errlen, -E2BIG,
				    "the regex needs more than %d byte classes", DFA_MAX_CLASSES);
	}
	for (int b = 255; b >= 0; b--)
		c->rep[d->cls[b]] = b;
	d->nclasses = ncls;
	return 0;
}

static bool has(const uint64_t *set, int i)
{
	return set[i >> 6] >> (i & 63) & 1;
}

static void add(uint64_t *set, int i)
{
	set[i >> 6] |= 1ULL << (i & 63);
}

static int push(struct compiler *c, uint64_t *set, int sp, int i)
{
	if (i >= 0 && !has(set, i)) {
		add(set, i);
		c->stack[sp++] = i;
	}
	return sp;
}

/* Adds what the set reaches without reading a byte; '^' holds only at the
 * start, '$' only at the end. */
static void closure(struct compiler *c, uint64_t *set, bool at_start, bool at_end)
{
	int sp = 0;

	for (size_t w = 0; w < c->nwords; w++)
		for (uint64_t bits = set[w]; bits; bits &= bits - 1)
			c->stack[sp++] = w * 64 + __builtin_ctzll(bits);
	while (sp) {
		const struct nfa_node *n = &c->nfa[c->stack[--sp]];

		if (n->type == N_SPLIT || (n->type == N_BOL && at_start) ||
		    (n->type == N_EOL && at_end)) {
			sp = push(c, set, sp, n->out0);
			sp = push(c, set, sp, n->out1);
		}
	}
}

static uint8_t accept_of(struct compiler *c, const uint64_t *set, bool at_start)
{
	if (has(set, c->match))
		return DFA_MATCHED | DFA_AT_END;
	memcpy(c->end_set, set, c->nwords * 8);
	closure(c, c->end_set, at_start, true);
	return has(c->end_set, c->match) ? DFA_AT_END : 0;
}

static uint64_t set_hash(const struct compiler *c, const uint64_t *set)
{
	uint64_t h = 0;

	for (size_t w = 0; w < c->nwords; w++)
		h = (h ^ set[w]) * 0x100000001b3ULL;
	return h;
}

/* The state of set (from the start only if at_start), added if new. */
static int state_findnew(struct compiler *c, struct dfa *d, const uint64_t *set, bool at_start)
{
	uint8_t accept = accept_of(c, set, at_start);
	uint64_t h = set_hash(c, set);
	size_t bytes = c->nwords * 8;

	/* the start state is this one if it accepts alike: steps ignore at_start */
	for (uint32_t i = 0; i < d->nstates; i++)
		if (c->hashes[i] == h && d->accept[i] == accept &&
		    !memcmp(&c->sets[i * c->nwords], set, bytes))
			return i;
	if (d->nstates == DFA_MAX_STATES)
		return fail(c->err, c->errlen, -E2BIG, "the regex needs more than %d DFA states",
			    DFA_MAX_STATES);
	memcpy(&c->sets[d->nstates * c->nwords], set, bytes);
	c->hashes[d->nstates] = h;
	d->accept[d->nstates] = accept;
	return d->nstates++;
}

static int step(struct compiler *c, struct dfa *d, uint32_t from, unsigned int byte)
{
	const uint64_t *set = &c->sets[from * c->nwords];
	uint64_t *next = c->step_set;

	memset(next, 0, c->nwords * 8);
	for (size_t w = 0; w < c->nwords; w++) {
		for (uint64_t bits = set[w]; bits; bits &= bits - 1) {
			const struct nfa_node *n = &c->nfa[w * 64 + __builtin_ctzll(bits)];

			if (n->type == N_SET && bset_has(&c->ast[n->ast].set, byte))
				add(next, n->out0);
		}
	}
	closure(c, next, false, false);
	if (has(next, c->match)) { /* matched: what follows cannot matter */
		memset(next, 0, c->nwords * 8);
		add(next, c->match);
	}
	return state_findnew(c, d, next, false);
}

static int subsets(struct compiler *c, struct dfa *d)
{
	int to;

	memset(c->step_set, 0, c->nwords * 8);
	add(c->step_set, c->start);
	closure(c, c->step_set, true, false);
	to = state_findnew(c, d, c->step_set, true);
	if (to < 0)
		return to;
	for (uint32_t i = 0; i < d->nstates; i++) {
		for (uint32_t k = 0; k < d->nclasses; k++) {
			to = d->accept[i] & DFA_MATCHED ? (int)i : step(c, d, i, c->rep[k]);
			if (to < 0)
				return to;
			d->next[i * DFA_MAX_CLASSES + k] = to;
		}
	}
	return 0;
}

static int build_dfa(struct compiler *c, struct dfa *d)
{
	int err;

	c->nwords = (c->n + 63) / 64;
	c->sets = calloc(DFA_MAX_STATES * c->nwords, 8);
	c->hashes = calloc(DFA_MAX_STATES, 8);
	c->step_set = calloc(c->nwords, 8);
	c->end_set = calloc(c->nwords, 8);
	c->stack = calloc(c->n, sizeof(int));
	if (!c->sets || !c->hashes || !c->step_set || !c->end_set || !c->stack)
		return fail(c->err, c->errlen, -ENOMEM, "out of memory");
	err = byte_classes(c, d);
	return err ? err : subsets(c, d);
}

static int parse(struct parser *ps, int *any)
{
	int root = parse_alt(ps);

	*any = -1;
	if (root >= 0 && *ps->p == ')')
		return PFAIL(ps, "unmatched ')'");
	*any = ast_new(ps, A_SET);
	if (*any >= 0)
		memset(&ps->nodes[*any].set, 0xff, sizeof(struct bset));
	return *any < 0 ? *any : root;
}

int dfa__compile(const char *regex, struct dfa *out, char *err, size_t errlen)
{
	struct parser ps = { .p = regex, .err = err, .errlen = errlen };
	struct compiler c = { .err = err, .errlen = errlen };
	int root, any, ret;

	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = 0;
	if (strlen(regex) > REGEX_MAX)
		return fail(err, errlen, -E2BIG, "the regex is longer than %d bytes", REGEX_MAX);
	root = parse(&ps, &any);
	if (root < 0) {
		ret = root;
		goto free_ast;
	}
	c.ast = ps.nodes;
	ret = build_nfa(&c, root, any);
	if (!ret)
		ret = build_dfa(&c, out);
	free(c.nfa);
	free(c.sets);
	free(c.hashes);
	free(c.step_set);
	free(c.end_set);
	free(c.stack);
free_ast:
	free(ps.nodes);
	return ret;
}

bool dfa__match(const struct dfa *d, const char *s, size_t len)
{
	uint32_t st = 0;

	if (d->accept[0] & DFA_MATCHED)
		return true;
	for (size_t i = 0; i < len; i++) {
		st = d->next[st * DFA_MAX_CLASSES + d->cls[(unsigned char)s[i]]];
		if (d->accept[st] & DFA_MATCHED)
			return true;
	}
	return d->accept[st] & DFA_AT_END;
}
