// SPDX-License-Identifier: GPL-2.0
/* A JSON document read in chunks and cut into the elements of its one big
 * array, each handed over parsed (by json-c) on its own, so that memory
 * follows the largest element and not the document: json-c's tree of a
 * 300 MB trace takes some 6 GB. The document is the array itself, or an
 * object holding it under a key; one other member of that object can be
 * asked for too. Only the structure around the elements is checked here;
 * json-c checks each element and member it parses. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util/strbuf.h"
#include "in.h"

#define CHUNK (256 * 1024)

enum state {
	ST_TOP,	      /* before the document */
	ST_KEY_WAIT,  /* in the top object, before a member */
	ST_KEY,	      /* in a member's name */
	ST_COLON,     /* after it */
	ST_VAL_WAIT,  /* before a member's value */
	ST_VAL,	      /* in a member's value */
	ST_ELEM_WAIT, /* in the array, before an element */
	ST_ELEM,      /* in an element */
	ST_END,	      /* after the document */
};

struct split {
	struct in_ctx *c;
	const struct json_split *js;
	json_tokener *tok;
	enum state st;
	int depth, adepth; /* adepth: the depth of the array's elements */
	bool in_str, esc, collect, comma, found;
	uint64_t line, val_line; /* the current line, where the value began */
	size_t index;		 /* of the next element */
	struct strbuf key, val;
	const char *chunk;
	size_t mark; /* in chunk, where collecting resumes */
};

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static int fail(struct split *s, const char *why)
{
	return in__fail(s->c, s->line, "%s", why);
}

static void start_value(struct split *s, size_t i)
{
	s->collect = true;
	s->mark = i;
	s->val_line = s->line;
	strbuf__reset(&s->val);
}

/* Parses the value collected up to chunk[i] (not included). */
static int parse_value(struct split *s, size_t i, json_object **obj)
{
	enum json_tokener_error jerr;
	size_t end;

	s->collect = false;
	if (strbuf__add(&s->val, s->chunk + s->mark, i - s->mark))
		return -ENOMEM;
	json_tokener_reset(s->tok);
	/* the NUL after it ends a number at the end */
	*obj = json_tokener_parse_ex(s->tok, s->val.s, s->val.len + 1);
	jerr = json_tokener_get_error(s->tok);
	end = json_tokener_get_parse_end(s->tok);
	for (size_t k = 0; k < end; k++)
		s->val_line += s->val.s[k] == '\n';
	if (!*obj && jerr == json_tokener_continue)
		return in__fail(s->c, s->val_line, "%s", "a value is cut short");
	if (!*obj)
		return in__fail(s->c, s->val_line, "%s", json_tokener_error_desc(jerr));
	for (; end < s->val.len; end++)
		if (!is_blank(s->val.s[end])) {
			json_object_put(*obj);
			return in__fail(s->c, s->val_line, "%s", "more data after a value");
		}
	return 0;
}

static int end_element(struct split *s, size_t i)
{
	uint64_t line = s->val_line;
	json_object *obj;
	int err;

	if (!s->val.len && i == s->mark)
		return fail(s, "an empty element in the array");
	err = parse_value(s, i, &obj);
	if (err)
		return err;
	s->c->line = line; /* for the messages about it */
	err = s->js->element(s->js->arg, obj, s->index++);
	json_object_put(obj);
	return err;
}

static int end_member(struct split *s, size_t i)
{
	json_object *obj;
	int err;

	if (!s->collect)
		return 0;
	err = parse_value(s, i, &obj);
	if (err)
		return err;
	err = s->js->member(s->js->arg, obj);
	json_object_put(obj);
	return err;
}

static void string_char(struct split *s, char ch)
{
	if (s->esc)
		s->esc = false;
	else if (ch == '\\')
		s->esc = true;
	else if (ch == '"')
		s->in_str = false;
	if (s->st == ST_KEY && s->in_str)
		strbuf__addc(&s->key, ch);
	if (s->st == ST_KEY && !s->in_str)
		s->st = ST_COLON;
}

/* Brackets and strings inside a value or an element; true at its end. */
static bool inner_char(struct split *s, char ch, int end_depth)
{
	if (ch == '"')
		s->in_str = true;
	else if (ch == '{' || ch == '[')
		s->depth++;
	else if ((ch == '}' || ch == ']') && s->depth > end_depth)
		s->depth--;
	else if (ch == ',' || ch == '}' || ch == ']')
		return s->depth == end_depth;
	return false;
}

static int close_array(struct split *s)
{
	if (s->comma)
		return fail(s, "a comma before the end of the array");
	s->depth--;
	s->st = s->depth ? ST_KEY_WAIT : ST_END;
	return 0;
}

static int top(struct split *s, char ch)
{
	if (ch != '{' && ch != '[')
		return fail(s, "not a JSON object or array");
	s->depth = s->adepth = 1;
	s->st = ch == '[' ? ST_ELEM_WAIT : ST_KEY_WAIT;
	s->found = ch == '[';
	return 0;
}

static int key_wait(struct split *s, char ch)
{
	if (ch == ',')
		return 0;
	if (ch == '}') {
		s->depth = 0;
		s->st = ST_END;
		return 0;
	}
	if (ch != '"')
		return fail(s, "a member name expected in the object");
	strbuf__reset(&s->key);
	s->in_str = true;
	s->st = ST_KEY;
	return 0;
}

static int val_wait(struct split *s, char ch, size_t i)
{
	if (s->key.s && !strcmp(s->key.s, s->js->array_key)) {
		if (ch != '[')
			return in__fail(s->c, s->line, "\"%s\" is not an array", s->js->array_key);
		s->found = true;
		s->depth = s->adepth = 2;
		s->comma = false;
		s->st = ST_ELEM_WAIT;
		return 0;
	}
	if (ch == ',' || ch == '}' || ch == ']')
		return fail(s, "a value expected after a member name");
	if (s->key.s && s->js->member_key && !strcmp(s->key.s, s->js->member_key))
		start_value(s, i);
	s->st = ST_VAL;
	inner_char(s, ch, 1);
	return 0;
}

static int elem_wait(struct split *s, char ch, size_t i)
{
	if (ch == ']')
		return close_array(s);
	if (ch == ',')
		return fail(s, "an empty element in the array");
	start_value(s, i);
	s->st = ST_ELEM;
	inner_char(s, ch, s->adepth);
	return 0;
}

/* A ',' or a closing bracket ends the member's value or the element. */
static int end_of_value(struct split *s, char ch, size_t i)
{
	int err;

	if (ch == (s->st == ST_VAL ? ']' : '}'))
		return fail(s, "a closing bracket that closes nothing");
	if (s->st == ST_VAL) {
		err = end_member(s, i);
		s->st = ch == '}' ? ST_END : ST_KEY_WAIT;
		s->depth -= ch == '}';
		return err;
	}
	err = end_element(s, i);
	s->comma = ch == ',';
	s->st = ST_ELEM_WAIT;
	return err ? err : ch == ']' ? close_array(s) : 0;
}

static int structure_char(struct split *s, char ch, size_t i)
{
	switch (s->st) {
	case ST_TOP:
		return top(s, ch);
	case ST_KEY_WAIT:
		return key_wait(s, ch);
	case ST_COLON:
		if (ch != ':')
			return fail(s, "a ':' expected after a member name");
		s->st = ST_VAL_WAIT;
		return 0;
	case ST_VAL_WAIT:
		return val_wait(s, ch, i);
	case ST_ELEM_WAIT:
		return elem_wait(s, ch, i);
	case ST_END:
		return fail(s, "more data after the JSON document");
	default:
		break;
	}
	return inner_char(s, ch, s->st == ST_VAL ? 1 : s->adepth) ? end_of_value(s, ch, i) : 0;
}

static int scan(struct split *s, const char *buf, size_t n)
{
	int err = 0;

	s->chunk = buf;
	s->mark = 0;
	for (size_t i = 0; i < n && !err; i++) {
		char ch = buf[i];

		if (s->in_str)
			string_char(s, ch);
		else if (!is_blank(ch) || s->st == ST_ELEM || s->st == ST_VAL)
			err = structure_char(s, ch, i);
		if (ch == '\n')
			s->line++;
		if (!err && s->st != ST_END && s->depth > 1000)
			err = fail(s, "too deeply nested");
	}
	if (!err && s->collect && strbuf__add(&s->val, buf + s->mark, n - s->mark))
		err = -ENOMEM;
	return err;
}

static int finish(struct split *s)
{
	if (s->st == ST_TOP)
		return in__fail_at(s->c, -ENODATA, "no JSON in it");
	if (s->st != ST_END)
		return fail(s, "the JSON ends early (truncated?)");
	if (!s->found)
		return in__fail_at(s->c, -EINVAL, "no \"%s\" in the JSON object", s->js->array_key);
	return 0;
}

int in_json__split(struct in_ctx *c, const struct json_split *js)
{
	struct split s = { .c = c, .js = js, .line = 1 };
	char *buf = malloc(CHUNK);
	size_t n;
	int err = 0;

	s.tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!buf || !s.tok)
		err = -ENOMEM;
	while (!err && (n = fread(buf, 1, CHUNK, c->f))) {
		in__advance(c, n);
		err = scan(&s, buf, n);
	}
	if (!err && ferror(c->f))
		err = in__fail_errno(c, -EIO);
	else if (!err)
		err = finish(&s);
	if (err == -ENOMEM)
		in__fail_errno(c, err);
	if (s.tok)
		json_tokener_free(s.tok);
	strbuf__free(&s.key);
	strbuf__free(&s.val);
	free(buf);
	return err;
}
