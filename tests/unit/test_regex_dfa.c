/*
 * Unit tests of src/util/regex_dfa.c: the DFA must answer as glibc's
 * regexec(REG_EXTENDED|REG_NOSUB) does on every string tried, random ones
 * made of pieces that matter to each pattern, and the edge cases.
 */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/regex_dfa.h"

#define RANDOM_STRINGS 3000
#define LONG_MAX_LEN   200
#define RANDOM_REGEXES 2000

/* A pattern and the pieces its test strings are made of, space-separated. */
struct sample {
	const char *re, *pieces;
};

static const struct sample samples[] = {
	{ "^(parse|compute)$", "parse compute p a r s e c o m x" },
	{ "^fib$", "fib f i b x" },
	{ "compute", "compute comp ute c o m p u t e" },
	{ "Class\\.method", "Class .method . C l a s m e t h o d x" },
	{ "^main\\.<locals>\\.", "main .<locals> . < > main.<locals>. m a l" },
	{ "a|^b", "a b c" },
	{ "(x|y)+z{2,3}$", "x y z zz zzz w" },
	{ "[^a-z]", "a z m A Z 0 _ . -" },
	{ "[[:digit:]]+", "0 5 9 a / :" },
	{ "^$", "a b" },
	{ "", "a b" },
	{ ".*", "a b" },
	{ "<module>", "<module> < > m o d u l e" },
	{ "^_[a-z]+_$", "_ a z q A 0 __ _init_" },
	{ "(^a|b$)", "a b c" },
	{ "^(a|b)$", "a b c" },
	{ "a^b", "a b" },
	{ "a$b", "a b" },
	{ "x*^a", "x a b" },
	{ "(a|$)b", "a b c" },
	{ "a$|b", "a b c" },
	{ "$^", "a" },
	{ "(^|x)y", "x y z" },
	{ "y(x|$)", "x y z" },
	{ "((^a)|b)c", "a b c d" },
	{ "(a$|b)*c", "a b c" },
	{ "a*", "a b" },
	{ "a+b+", "a b c" },
	{ "ab?c", "a b c" },
	{ "a{3}", "a b aa" },
	{ "^a{2,}$", "a b aa" },
	{ "^(ab){1,3}$", "ab a b abab" },
	{ "(a|b){0,2}c", "a b c d" },
	{ "^a{0}b$", "a b" },
	{ "[]a]", "] a b [" },
	{ "[^]a]", "] a b [" },
	{ "[-a]", "- a b" },
	{ "[a-]", "- a b" },
	{ "[+--]", "+ , - . a" },
	{ "[[:alpha:]_][[:alnum:]_]*$", "a Z 0 9 _ . <" },
	{ "[[:space:]]", "\t \n \v \f \r a" },
	{ "^[[:upper:]][[:lower:]]+$", "A Z a z 0" },
	{ "[[:punct:]]", "! / : @ [ ` { ~ a 0" },
	{ "[[:digit:]-]", "- 5 a" },
	{ "[^[:alnum:]]", "a Z 0 . _" },
	{ "[.]\\\\", ". \\ a" },
	{ "\\(\\)\\*\\+\\?\\{\\}\\|\\^\\$\\[\\]", "( ) * + ? { } | ^ $ [ ] a" },
	{ "a.c", "a b c ." },
	{ "^.{2,4}$", "a b" },
	{ "(a|ab)(c|bcd)(d*)", "a b c d" },
	{ "^(a*)*$", "a b" },
	{ "(a|)b", "a b" },
	{ "^(|a)$", "a b" },
	{ "()x", "x y" },
	{ "x|y|z", "x y z w" },
	{ "^(fib|fib_memo|fibonacci)$", "fib _memo onacci f i b" },
	{ "\xc3\xa9t\xc3\xa9", "\xc3\xa9 t \xc3 \xa9 e" },
	{ "[\x80-\xff]", "\x80 \xff a \x7f" },
	{ "run_.*_(test|bench)$", "run_ _ test bench x" },
	{ "((a|b)c|d)*e$", "a b c d e" },
	{ "a|b|^$", "a b c" },
	{ "}", "} { a" },
	{ "a{1,2}{2}", "a b" },
};

/* xorshift64*: reproducible without touching the global rand() state. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static int split_pieces(char *buf, char **pieces, int max)
{
	int n = 0;

	for (char *tok = strtok(buf, " "); tok && n < max; tok = strtok(NULL, " "))
		pieces[n++] = tok;
	return n;
}

/* Pieces joined at random up to max_len bytes; returns the length. */
static size_t random_string(uint64_t *seed, char **pieces, int n, char *out, size_t max_len)
{
	size_t want = next_random(seed) % (max_len + 1), len = 0;

	while (len < want) {
		const char *p = pieces[next_random(seed) % n];
		size_t plen = strlen(p);

		if (len + plen > max_len)
			break;
		memcpy(out + len, p, plen);
		len += plen;
	}
	out[len] = 0;
	return len;
}

static void check_string(const struct sample *t, const regex_t *re, const struct dfa *d,
			 const char *s, size_t len)
{
	bool want = regexec(re, s, 0, NULL, 0) == 0, got = dfa__match(d, s, len);

	if (want != got)
		fail_msg("'%s' on \"%s\": regexec says %d, the DFA %d", t->re, s, want, got);
}

/* The table is what BPF will trust: every index in range. */
static void check_table(const struct dfa *d)
{
	assert_true(d->nstates >= 1 && d->nstates <= DFA_MAX_STATES);
	assert_true(d->nclasses >= 1 && d->nclasses <= DFA_MAX_CLASSES);
	for (int b = 0; b < 256; b++)
		assert_true(d->cls[b] < d->nclasses);
	for (uint32_t s = 0; s < d->nstates; s++) {
		if (d->accept[s] & DFA_MATCHED)
			assert_true(d->accept[s] & DFA_AT_END);
		for (uint32_t k = 0; k < d->nclasses; k++)
			assert_true(d->next[s * DFA_MAX_CLASSES + k] < d->nstates);
	}
}

static void check_sample(const struct sample *t, struct dfa *d, uint64_t *seed)
{
	char err[128], buf[256], s[LONG_MAX_LEN + 1], *pieces[32];
	int npieces, ret;
	regex_t re;

	ret = dfa__compile(t->re, d, err, sizeof(err));
	if (ret)
		fail_msg("'%s' did not compile: %d %s", t->re, ret, err);
	check_table(d);
	assert_int_equal(regcomp(&re, t->re, REG_EXTENDED | REG_NOSUB), 0);
	snprintf(buf, sizeof(buf), "%s", t->pieces);
	npieces = split_pieces(buf, pieces, 32);
	check_string(t, &re, d, "", 0);
	for (int i = 0; i < RANDOM_STRINGS; i++) {
		size_t max_len = i % 10 ? 12 : LONG_MAX_LEN;
		size_t len = random_string(seed, pieces, npieces, s, max_len);

		check_string(t, &re, d, s, len);
	}
	regfree(&re);
}

static void test_agrees_with_regexec(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	struct dfa *d = malloc(sizeof(*d));
	int n = 0;

	(void)state;
	assert_non_null(d);
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		if (!samples[i].pieces)
			continue;
		check_sample(&samples[i], d, &seed);
		n++;
	}
	print_message("%d patterns, %d strings each\n", n, RANDOM_STRINGS + 1);
	free(d);
}

/* A random regex over a, b, c into g->buf. glibc 2.36 errs on '^' and '$'
 * inside a repeated group (see test_known_verdicts), so none go there. */
struct gen {
	char buf[512];
	size_t len;
	uint64_t seed;
};

static void gen_put(struct gen *g, const char *s)
{
	size_t n = strlen(s);

	if (g->len + n < sizeof(g->buf))
		memcpy(g->buf + g->len, s, n + 1), g->len += n;
}

static void gen_alt(struct gen *g, int depth, bool anchors);

static void gen_atom(struct gen *g, int depth, bool anchors)
{
	static const char *const leaves[] = { "a",    "b",    "c",     ".",
					      "[ab]", "[^a]", "[a-b]", "[[:alpha:]]" };
	unsigned int r = next_random(&g->seed) % 12;

	if (r < 8) {
		gen_put(g, leaves[r]);
	} else if (r < 10 && depth < 3) {
		gen_put(g, "(");
		gen_alt(g, depth + 1, anchors);
		gen_put(g, ")");
	} else {
		gen_put(g, !anchors ? "a" : r % 2 ? "^" : "$");
	}
}

static void gen_piece(struct gen *g, int depth, bool anchors)
{
	static const char *const reps[] = { "*", "+", "?", "{0,1}", "{1,2}", "{2}" };
	unsigned int r = next_random(&g->seed) % 12;
	size_t at = g->len;

	gen_atom(g, depth, anchors && r >= 6);
	if (r < 6 && !strchr("^$", g->buf[at]))
		gen_put(g, reps[r]);
}

static void gen_alt(struct gen *g, int depth, bool anchors)
{
	unsigned int n = next_random(&g->seed) % 4;

	for (unsigned int i = 0; i < n; i++)
		gen_piece(g, depth, anchors);
	if (next_random(&g->seed) % 4 == 0) {
		gen_put(g, "|");
		gen_alt(g, depth, anchors);
	}
}

/* Every string over a, b, c up to 5 bytes long. */
static void check_all_strings(const struct sample *t, const regex_t *re, const struct dfa *d)
{
	char s[6];

	for (size_t len = 0, total = 1; len < sizeof(s); len++, total *= 3) {
		for (size_t k = 0; k < total; k++) {
			for (size_t i = 0, x = k; i < len; i++, x /= 3)
				s[i] = "abc"[x % 3];
			s[len] = 0;
			check_string(t, re, d, s, len);
		}
	}
}

static void test_random_regexes(void **state)
{
	struct gen g = { .seed = 0x2545f4914f6cdd1dULL };
	struct dfa *d = malloc(sizeof(*d));
	int compiled = 0, ret;
	char err[128];
	regex_t re;

	(void)state;
	assert_non_null(d);
	for (int i = 0; i < RANDOM_REGEXES; i++) {
		struct sample t = { g.buf, NULL };

		g.len = 0;
		g.buf[0] = 0;
		gen_alt(&g, 0, true);
		if (regcomp(&re, g.buf, REG_EXTENDED | REG_NOSUB))
			continue; /* not one glibc takes */
		ret = dfa__compile(g.buf, d, err, sizeof(err));
		if (ret)
			fail_msg("'%s' did not compile: %d %s", g.buf, ret, err);
		check_table(d);
		check_all_strings(&t, &re, d);
		regfree(&re);
		compiled++;
	}
	print_message("%d random regexes, each on the 364 strings over a, b, c up to 5 bytes\n",
		      compiled);
	assert_true(compiled > RANDOM_REGEXES / 2);
	free(d);
}

/* Each string's verdict by hand, in case regexec and the DFA share a mistake. */
static void test_known_verdicts(void **state)
{
	static const struct {
		const char *re, *s;
		bool match;
	} cases[] = {
		{ "^(parse|compute)$", "parse", true },
		{ "^(parse|compute)$", "parser", false },
		{ "^(parse|compute)$", "xcompute", false },
		{ "compute", "do_compute_all", true },
		{ "^main\\.<locals>\\.", "main.<locals>.inner", true },
		{ "^main\\.<locals>\\.", "xmain.<locals>.inner", false },
		{ "a|^b", "cb", false },
		{ "a|^b", "ca", true },
		{ "^$", "", true },
		{ "^$", "x", false },
		{ "", "", true },
		/* glibc 2.36 says 1 to these: its '^' inside a repeated group
		 * holds after the first pass too */
		{ "(^a|b)+c", "bac", false },
		{ "(^a|b)+c", "ac", true },
		{ "(^a|b)+c", "abc", true },
	};
	struct dfa *d = malloc(sizeof(*d));
	char err[128];

	(void)state;
	assert_non_null(d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(dfa__compile(cases[i].re, d, err, sizeof(err)), 0);
		if (dfa__match(d, cases[i].s, strlen(cases[i].s)) != cases[i].match)
			fail_msg("'%s' on \"%s\" should give %d", cases[i].re, cases[i].s,
				 cases[i].match);
	}
	free(d);
}

static void expect_error(struct dfa *d, const char *re, int ret, const char *words)
{
	char err[128] = "";
	int got = dfa__compile(re, d, err, sizeof(err));

	if (got != ret || !strstr(err, words))
		fail_msg("'%s' gave %d \"%s\", not %d naming '%s'", re, got, err, ret, words);
}

static void test_errors(void **state)
{
	struct dfa *d = malloc(sizeof(*d));
	char big[5000];

	(void)state;
	assert_non_null(d);
	expect_error(d, "a\\1", -EINVAL, "backreference '\\1'");
	expect_error(d, "(ab", -EINVAL, "unmatched '('");
	expect_error(d, "ab)", -EINVAL, "unmatched ')'");
	expect_error(d, "[a", -EINVAL, "unmatched '['");
	expect_error(d, "[]", -EINVAL, "unmatched '['");
	expect_error(d, "[z-a]", -EINVAL, "invalid range 'z-a'");
	expect_error(d, "[[:word:]]", -EINVAL, "unknown character class '[:word:]'");
	expect_error(d, "[[.a.]]", -EINVAL, "collating element");
	expect_error(d, "[[:alpha:]-z]", -EINVAL, "a range from a character class");
	expect_error(d, "\\w+", -EINVAL, "escape '\\w'");
	expect_error(d, "a\\", -EINVAL, "trailing '\\'");
	expect_error(d, "*a", -EINVAL, "repetition '*' follows nothing");
	expect_error(d, "a|+", -EINVAL, "repetition '+' follows nothing");
	expect_error(d, "^*a|b", -EINVAL, "repetition '*' of an anchor");
	expect_error(d, "a{2", -EINVAL, "unmatched '{'");
	expect_error(d, "a{x}", -EINVAL, "'{' not followed by a repetition count");
	expect_error(d, "a{3,2}", -EINVAL, "maximum below its minimum");
	expect_error(d, "a{256}", -EINVAL, "above 255");
	expect_error(d, "(a|b)*a(a|b){12}", -E2BIG, "more than 256 DFA states");
	expect_error(d, "((a{255}){255}){255}", -E2BIG, "NFA nodes");
	expect_error(d,
		     "[\x01][\x02][\x03][\x04][\x05][\x06][\x07][\x08][\x09][\x0a]"
		     "[\x0b][\x0c][\x0d][\x0e][\x0f][\x10][\x11][\x12][\x13][\x14]"
		     "[\x15][\x16][\x17][\x18][\x19][\x1a][\x1b][\x1c][\x1d][\x1e]"
		     "[\x1f][\x20][\x21][\x22][\x23][\x24][\x25][\x26][\x27][\x28]"
		     "[\x29][\x2a][\x2b][\x2c][\x2d][\x2e][\x2f][\x30][\x31][\x32]"
		     "[\x33][\x34][\x35][\x36][\x37][\x38][\x39][\x3a][\x3b][\x3c]"
		     "[\x3d][\x3e][\x3f][\x40]",
		     -E2BIG, "more than 64 byte classes");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	expect_error(d, big, -E2BIG, "longer than 4096 bytes");
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agrees_with_regexec),
		cmocka_unit_test(test_random_regexes),
		cmocka_unit_test(test_known_verdicts),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
