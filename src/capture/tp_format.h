/* A tracepoint's format, as tracefs writes it (events/CATEGORY/NAME/format):
 * the fields of its record, each at an offset, of a size, signed or not. */
#ifndef FLAMEBPF_TP_FORMAT_H
#define FLAMEBPF_TP_FORMAT_H

#include <stdbool.h>

#define TP_FIELD_NAME_LEN 64
#define TP_FIELD_DECL_LEN 96

enum tp_field_kind {
	TP_FIELD_NUMBER,  /* an integer of 1, 2, 4 or 8 bytes */
	TP_FIELD_STRING,  /* __data_loc or __rel_loc: where a string is, not a value */
	TP_FIELD_ARRAY,	  /* char comm[16] */
	TP_FIELD_POINTER, /* an address */
	TP_FIELD_ODD,	  /* an integer of another size */
};

struct tp_field {
	char name[TP_FIELD_NAME_LEN]; /* "bytes", "comm" (without its [16]) */
	char decl[TP_FIELD_DECL_LEN]; /* as declared: "unsigned int bytes" */
	unsigned int offset, size;    /* in the record, bytes */
	bool is_signed;
	bool common; /* common_type, common_pid, ...: every record's header */
	enum tp_field_kind kind;
};

struct strbuf;

/* The next field line of a format text from *at, which it moves past.
 * Returns false at the end. */
bool tp_format__next(const char **at, struct tp_field *f);

/* The field named name, the header's (common_*) left out: a program's
 * context starts with a pointer the kernel writes over them. Returns 0 or
 * -ENOENT. */
int tp_format__field(const char *format, const char *name, struct tp_field *f);

/* Appends the names of the fields a value can weigh ("pfn, order"), the
 * header's left out. Returns 0 or -ENOMEM. */
int tp_format__numbers(const char *format, struct strbuf *b);

/* NULL when f is a number; else what it is instead ("a string"). */
const char *tp_field__not_a_number(const struct tp_field *f);

#endif
