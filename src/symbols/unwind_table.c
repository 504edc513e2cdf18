/* Unwind tables from DWARF call-frame information (.eh_frame, .debug_frame).
 * The file is whatever a profiled process mapped, owned by anyone, so every
 * read is bounds-checked and the work is capped per CIE and FDE: a malformed
 * section gives an error or a partial table, in time linear in its size.
 *
 * Three passes: walk the entries, parsing each CIE once (its initial
 * instructions too) and noting where FDEs are; decode the FDE headers and
 * sort them by address; run each FDE's program, turning every advance of the
 * location into a row. Only the rules an x86-64 unwinder needs are tracked:
 * the CFA, rbp and the return address.
 */
#include "unwind_table.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* DWARF register numbers of the x86-64 psABI. */
#define REG_RBP 6
#define REG_RSP 7

/* Caps on the work one file can cause, far above what compilers emit. */
#define ROWS_PER_FDE_MAX      (1 << 16)
#define INSNS_PER_PROGRAM_MAX (1 << 18)
#define REMEMBER_MAX	      32
#define ROWS_MAX	      (1 << 24) /* the whole table: 256 MB */
#define AUGMENTATION_MAX      8

/* Rows held before they go to a sink, at an FDE's end (those of one FDE
 * more). */
#define SINK_BATCH 1024

/* DW_EH_PE_*: the low nibble is the format, the next three bits the base. */
enum {
	PE_ABSPTR = 0x00,
	PE_ULEB128 = 0x01,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SLEB128 = 0x09,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10,
	PE_ALIGNED = 0x50,
	PE_BASE = 0x70,
};

/* DW_CFA_*: the first three carry an operand in their low six bits. */
enum {
	CFA_advance_loc = 0x40,
	CFA_offset = 0x80,
	CFA_restore = 0xc0,
	CFA_nop = 0x00,
	CFA_set_loc = 0x01,
	CFA_advance_loc1 = 0x02,
	CFA_advance_loc2 = 0x03,
	CFA_advance_loc4 = 0x04,
	CFA_offset_extended = 0x05,
	CFA_restore_extended = 0x06,
	CFA_undefined = 0x07,
	CFA_same_value = 0x08,
	CFA_register = 0x09,
	CFA_remember_state = 0x0a,
	CFA_restore_state = 0x0b,
	CFA_def_cfa = 0x0c,
	CFA_def_cfa_register = 0x0d,
	CFA_def_cfa_offset = 0x0e,
	CFA_def_cfa_expression = 0x0f,
	CFA_expression = 0x10,
	CFA_offset_extended_sf = 0x11,
	CFA_def_cfa_sf = 0x12,
	CFA_def_cfa_offset_sf = 0x13,
	CFA_val_offset = 0x14,
	CFA_val_offset_sf = 0x15,
	CFA_val_expression = 0x16,
	CFA_GNU_args_size = 0x2e,
	CFA_GNU_negative_offset_extended = 0x2f,
};

/* The DW_OP_* of the PLT's CFA expression. */
enum {
	OP_lit0 = 0x30,
	OP_lit3 = 0x33,
	OP_lit15 = 0x3f,
	OP_and = 0x1a,
	OP_ge = 0x2a,
	OP_shl = 0x24,
	OP_plus = 0x22,
	OP_breg7 = 0x77,  /* rsp */
	OP_breg16 = 0x80, /* rip */
};

#define PLT_ENTRY 16 /* bytes of an x86-64 .plt entry */

/* The bytes of a .eh_frame or .debug_frame and the address they load at. */
struct section {
	const uint8_t *buf;
	size_t len;
	uint64_t vaddr;
	bool debug_frame;
	bool frameless_only; /* rows only where no frame is set up (go_binary()) */
};

/* A read position bounded by end. A read past end sets bad and yields 0, so
 * parsers check bad once after a group of reads. */
struct rd {
	const struct section *s;
	size_t pos, end;
	bool bad;
};

enum rule_kind { RULE_SAME, RULE_UNDEF, RULE_AT_CFA, RULE_OTHER };

struct rule {
	enum rule_kind kind;
	int64_t off; /* RULE_AT_CFA: saved at CFA + off */
};

/* CFA_PLT: the expression GNU ld gives a lazy-binding .plt, whose entries
 * push onto the stack part way through: rsp + cfa_off, 8 more from byte
 * plt_split of each 16-byte entry. Any other expression is CFA_EXPR. */
enum cfa_kind { CFA_UNDEF, CFA_REG, CFA_EXPR, CFA_PLT };

struct frame_state {
	enum cfa_kind cfa;
	uint64_t cfa_reg;
	int64_t cfa_off;
	uint8_t plt_split; /* CFA_PLT */
	struct rule rbp, ra;
};

struct cie {
	size_t off; /* of its length field in the section */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	size_t insns, end; /* its initial instructions */
	uint8_t fde_enc;   /* DW_EH_PE_* of its FDEs' addresses */
	bool aug_data;	   /* its FDEs have augmentation data ('z') */
	bool signal_frame; /* its FDEs are signal frames ('S'): a sigreturn trampoline */
	bool ok;
	struct frame_state init; /* the state its initial instructions leave */
};

struct fde {
	uint64_t begin, end;
	size_t insns, insns_end;
	const struct cie *cie;
};

struct range {
	uint64_t start, end;
};

/* An executable PT_LOAD: where the file's code goes in memory. */
struct unwind_load {
	uint64_t off, vaddr, filesz;
};

/* Where the executable code of a file is. */
struct code_map {
	struct range *segs; /* executable PT_LOADs: FDEs must start in one */
	size_t nsegs;
	struct unwind_load *loads; /* the same with their file offsets, for the table */
	size_t nloads;
	struct range *secs; /* executable sections: what coverage counts */
	size_t nsecs;
};

struct unwind_table {
	struct unwind_row *rows; /* with a sink: those not given to it yet */
	size_t nrows, cap;
	const struct unwind_sink *sink; /* NULL: every row kept */
	size_t nsent;			/* rows given to the sink */
	struct unwind_row last;		/* the last row counted in the stats */
	bool counted;			/* last is one */
	struct unwind_stats stats;
	struct unwind_load *loads; /* NULL for a table parsed from bytes */
	size_t nloads;
	bool frameless_only; /* its section's */
};

/* One pass over a section. */
struct parse {
	const struct section *s;
	const struct code_map *code; /* NULL: no check */
	struct cie *cies;	     /* in section order */
	size_t ncies, cies_cap;
	size_t *fde_offs; /* where each FDE starts */
	size_t nfde_offs, fde_offs_cap;
	struct fde *fdes;
	size_t nfdes;
	struct unwind_table *t;
};

/* Runs one program: a CIE's initial instructions (t NULL) or an FDE's. */
struct interp {
	const struct section *s;
	const struct cie *cie;
	const struct frame_state *init; /* what restore goes back to */
	struct frame_state st;
	struct frame_state saved[REMEMBER_MAX];
	size_t nsaved;
	uint64_t loc, end;
	size_t nrows;
	struct unwind_table *t;
};

/* The x86-64 defaults before a CIE's instructions: no CFA, rbp and the return
 * address unchanged (libdw's choice too, so both agree on odd CIEs). */
static const struct frame_state default_state = {
	.cfa = CFA_UNDEF,
	.rbp = { RULE_SAME, 0 },
	.ra = { RULE_SAME, 0 },
};

/* Returns v with room for element n (maybe moved), or NULL when out of
 * memory; v stays valid then. */
static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;

	if (n < *cap)
		return v;
	ncap = *cap ? *cap * 2 : 64;
	v = reallocarray(v, ncap, size);
	if (v)
		*cap = ncap;
	return v;
}

/* ---- reading ---- */

static const uint8_t *rd_take(struct rd *r, size_t n)
{
	const uint8_t *p;

	if (r->bad || r->end - r->pos < n) {
		r->bad = true;
		return NULL;
	}
	p = r->s->buf + r->pos;
	r->pos += n;
	return p;
}

/* A little-endian unsigned integer of n <= 8 bytes. */
static uint64_t rd_uint(struct rd *r, size_t n)
{
	const uint8_t *p = rd_take(r, n);
	uint64_t v = 0;

	while (p && n--)
		v = v << 8 | p[n];
	return v;
}

/* The bits of a LEB128 number and, in *last, its last byte; more than 64
 * significant bits make an unsigned one bad. */
static uint64_t rd_leb(struct rd *r, bool is_signed, unsigned int *shift, uint8_t *last)
{
	const uint8_t *p;
	uint64_t v = 0;

	*shift = 0;
	*last = 0;
	do {
		p = rd_take(r, 1);
		if (!p) {
			*last = 0; /* truncated: 0, not sign-extended */
			return 0;
		}
		if (*shift < 64)
			v |= (uint64_t)(*p & 0x7f) << *shift;
		else if (!is_signed && (*p & 0x7f))
			r->bad = true;
		*shift += *shift < 64 ? 7 : 0;
		*last = *p;
	} while (*p & 0x80);
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	unsigned int shift;
	uint8_t last;

	return rd_leb(r, false, &shift, &last);
}

static int64_t rd_sleb(struct rd *r)
{
	unsigned int shift;
	uint8_t last;
	uint64_t v = rd_leb(r, true, &shift, &last);

	if (shift < 64 && (last & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A value in the format of the low nibble of a DW_EH_PE_* encoding. */
static uint64_t rd_format(struct rd *r, uint8_t enc)
{
	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		return rd_uint(r, 8);
	case PE_ULEB128:
		return rd_uleb(r);
	case PE_UDATA2:
		return rd_uint(r, 2);
	case PE_UDATA4:
		return rd_uint(r, 4);
	case PE_SLEB128:
		return (uint64_t)rd_sleb(r);
	case PE_SDATA2:
		return (uint64_t)(int64_t)(int16_t)rd_uint(r, 2);
	case PE_SDATA4:
		return (uint64_t)(int64_t)(int32_t)rd_uint(r, 4);
	}
	r->bad = true;
	return 0;
}

/* An encoded address. Only the bases x86-64 tools emit are known: absolute,
 * relative to the field itself, and aligned (absolute, 8-byte aligned). The
 * indirect bit is ignored: no caller dereferences. */
static uint64_t rd_pointer(struct rd *r, uint8_t enc)
{
	uint64_t field = r->s->vaddr + r->pos;

	switch (enc & PE_BASE) {
	case 0:
		return rd_format(r, enc);
	case PE_PCREL:
		return field + rd_format(r, enc);
	case PE_ALIGNED:
		rd_take(r, (8 - (field & 7)) & 7);
		return rd_uint(r, 8);
	}
	r->bad = true;
	return 0;
}

/* A NUL-terminated string of at most max characters. */
static const char *rd_string(struct rd *r, size_t max)
{
	const char *s;
	size_t n = r->end - r->pos;
	const void *nul;

	if (r->bad)
		return NULL;
	s = (const char *)r->s->buf + r->pos;
	nul = memchr(s, '\0', n < max + 1 ? n : max + 1);
	if (!nul) {
		r->bad = true;
		return NULL;
	}
	r->pos += (size_t)((const char *)nul - s) + 1;
	return s;
}

/* ---- entries ---- */

struct entry {
	size_t start, id_pos, body, end;
	uint64_t id;
	bool is_cie;
};

/* Reads the header of the entry at pos. Returns 1, 0 at the end of the section
 * (a zero terminator, or fewer than 4 bytes left), or -EBADMSG. */
static int read_entry(const struct section *s, size_t pos, struct entry *e)
{
	struct rd r = { s, pos, s->len, false };
	uint64_t len = rd_uint(&r, 4), cie_id;
	size_t idsz = 4;

	if (r.bad || len == 0)
		return 0;
	if (len == 0xffffffff) {
		len = rd_uint(&r, 8);
		idsz = 8;
	}
	if (r.bad || len > r.end - r.pos || len < idsz)
		return -EBADMSG;
	e->start = pos;
	e->end = r.pos + len;
	e->id_pos = r.pos;
	e->id = rd_uint(&r, idsz);
	e->body = r.pos;
	cie_id = idsz == 4 ? 0xffffffff : UINT64_MAX;
	e->is_cie = e->id == (s->debug_frame ? cie_id : 0);
	return 1;
}

/* The augmentation data a 'z' announces: only the FDE pointer encoding
 * matters, but a personality pointer ('P') before it must be decoded to get
 * there. An unknown letter could hide data of unknown size: the CIE is
 * refused. */
static int parse_augmentation(struct rd *r, const char *aug, struct cie *c)
{
	uint64_t len = rd_uleb(r);
	struct rd d = *r;

	if (r->bad || len > r->end - r->pos)
		return -EBADMSG;
	d.end = r->pos + len;
	r->pos = d.end;
	c->aug_data = true;
	for (aug++; *aug; aug++) {
		if (*aug == 'R')
			c->fde_enc = (uint8_t)rd_uint(&d, 1);
		else if (*aug == 'P')
			rd_pointer(&d, (uint8_t)rd_uint(&d, 1));
		else if (*aug == 'L')
			rd_uint(&d, 1);
		else if (*aug == 'S')
			c->signal_frame = true;
		else if (*aug != 'B')
			return -EOPNOTSUPP;
	}
	return d.bad ? -EBADMSG : 0;
}

/* The fields of the CIE whose entry is e. */
static int parse_cie_fields(const struct section *s, const struct entry *e, struct cie *c)
{
	struct rd r = { s, e->body, e->end, false };
	uint64_t version = rd_uint(&r, 1);
	const char *aug = rd_string(&r, AUGMENTATION_MAX);

	if (r.bad || (version != 1 && version != 3 && version != 4))
		return -EBADMSG;
	/* DWARF 4 adds the address size (8 here) and segment selector size (0). */
	if (version == 4 && (rd_uint(&r, 1) != 8 || rd_uint(&r, 1) != 0))
		return -EOPNOTSUPP;
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	c->ra_reg = version == 1 ? rd_uint(&r, 1) : rd_uleb(&r);
	c->fde_enc = PE_ABSPTR;
	if (aug[0] == 'z') {
		int err = parse_augmentation(&r, aug, c);

		if (err)
			return err;
	} else if (aug[0] && strcmp(aug, "S") != 0) {
		return -EOPNOTSUPP;
	}
	c->signal_frame = c->signal_frame || !strcmp(aug, "S");
	c->insns = r.pos;
	c->end = e->end;
	return r.bad ? -EBADMSG : 0;
}

/* ---- the call-frame program ---- */

static struct rule *reg_rule(struct interp *in, uint64_t reg)
{
	if (reg == REG_RBP)
		return &in->st.rbp;
	if (reg == in->cie->ra_reg)
		return &in->st.ra;
	return NULL;
}

static const struct rule *init_rule(const struct interp *in, uint64_t reg)
{
	return reg == REG_RBP ? &in->init->rbp : &in->init->ra;
}

/* A factored offset: n times the CIE's data alignment. */
static int factor(const struct interp *in, int64_t n, int64_t *off)
{
	return __builtin_mul_overflow(n, in->cie->data_align, off) ? -EOVERFLOW : 0;
}

static int factor_u(const struct interp *in, uint64_t n, int64_t *off)
{
	return n > INT64_MAX ? -EOVERFLOW : factor(in, (int64_t)n, off);
}

static enum unwind_kind row_kind(const struct frame_state *st)
{
	if (st->ra.kind == RULE_UNDEF)
		return UNWIND_END;
	if (st->cfa != CFA_REG || st->cfa_off < INT32_MIN || st->cfa_off > INT32_MAX)
		return UNWIND_CFA_OTHER;
	if (st->cfa_reg != REG_RSP && st->cfa_reg != REG_RBP)
		return UNWIND_CFA_OTHER;
	if (st->ra.kind != RULE_AT_CFA || st->ra.off != -8)
		return UNWIND_RA_OTHER;
	return st->cfa_reg == REG_RSP ? UNWIND_CFA_RSP : UNWIND_CFA_RBP;
}

static struct unwind_row make_row(uint64_t pc, const struct frame_state *st)
{
	struct unwind_row row = { .pc = pc, .kind = (uint8_t)row_kind(st) };

	if (row.kind == UNWIND_CFA_RSP || row.kind == UNWIND_CFA_RBP)
		row.cfa_off = (int32_t)st->cfa_off;
	if (st->rbp.kind == RULE_SAME) {
		row.rbp = UNWIND_RBP_SAME;
	} else if (st->rbp.kind == RULE_AT_CFA && st->rbp.off >= INT16_MIN &&
		   st->rbp.off <= INT16_MAX) {
		row.rbp = UNWIND_RBP_CFA;
		row.rbp_off = (int16_t)st->rbp.off;
	} else {
		row.rbp = UNWIND_RBP_OTHER;
	}
	return row;
}

static bool same_rules(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->rbp == b->rbp &&
	       a->rbp_off == b->rbp_off;
}

/* Appends a row from pc on. A row at or below the last one replaces it (the
 * "no info" row at the end of an FDE when the next starts right there), and a
 * row with the rules of the one before merges into it. */
static int table_add(struct unwind_table *t, struct unwind_row row)
{
	struct unwind_row *v;

	while (t->nrows && t->rows[t->nrows - 1].pc >= row.pc)
		t->nrows--;
	if (t->nrows && same_rules(&t->rows[t->nrows - 1], &row))
		return 0;
	if (t->nsent + t->nrows == ROWS_MAX)
		return -EFBIG;
	v = grow(t->rows, &t->cap, t->nrows, sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->rows = v;
	t->rows[t->nrows++] = row;
	return 0;
}

/* A Go function's row where it has no frame (a leaf without one, or an
 * entry before its prologue): the return address at the stack pointer,
 * which frame pointers miss (the caller's frame pointer is still there, so
 * its caller is the next found: main.batch lost under main.work in 96% of
 * samples). Any other row is none: frame pointers there. */
static struct unwind_row frameless(struct unwind_row row)
{
	if (row.kind == UNWIND_CFA_RSP && row.cfa_off == 8 && row.rbp == UNWIND_RBP_SAME)
		return row;
	return (struct unwind_row){ .pc = row.pc, .kind = UNWIND_NONE };
}

static int add_row(struct interp *in, uint64_t pc, const struct frame_state *st)
{
	struct unwind_row row = make_row(pc, st);

	/* a signal frame whose rules are expressions into the kernel's frame
	 * (glibc's __restore_rt): the BPF walk knows that frame's layout */
	if (in->cie->signal_frame && (row.kind == UNWIND_CFA_OTHER || row.kind == UNWIND_RA_OTHER))
		row = (struct unwind_row){ .pc = pc, .kind = UNWIND_SIGNAL };

	if (++in->nrows > ROWS_PER_FDE_MAX)
		return -E2BIG;
	return table_add(in->t, in->t->frameless_only ? frameless(row) : row);
}

/* The rows of one PLT entry's part [start, stop) within [in->loc, upto).
 * Returns 1 once upto is reached. */
static int plt_part(struct interp *in, uint64_t start, uint64_t stop, uint64_t upto, int64_t extra)
{
	struct frame_state st = in->st;

	if (stop <= in->loc)
		return 0;
	if (start < in->loc)
		start = in->loc;
	if (start >= upto)
		return 1;
	st.cfa = CFA_REG;
	st.cfa_reg = REG_RSP;
	st.cfa_off += extra;
	return add_row(in, start, &st);
}

/* The PLT expression over [in->loc, upto) as exact rows: two per entry. */
static int emit_plt(struct interp *in, uint64_t upto)
{
	uint64_t entry = in->loc & ~(uint64_t)(PLT_ENTRY - 1);
	int rc = 0;

	while (!rc) {
		rc = plt_part(in, entry, entry + in->st.plt_split, upto, 0);
		if (!rc)
			rc = plt_part(in, entry + in->st.plt_split, entry + PLT_ENTRY, upto, 8);
		if (entry > UINT64_MAX - 2 * PLT_ENTRY)
			break;
		entry += PLT_ENTRY;
	}
	return rc < 0 ? rc : 0;
}

/* The rows of the state reached at the current location up to upto, if
 * inside the FDE: one, or those of the PLT expression. */
static int emit(struct interp *in, uint64_t upto)
{
	if (in->loc >= in->end)
		return 0;
	if (in->st.cfa == CFA_PLT)
		return emit_plt(in, upto < in->end ? upto : in->end);
	return add_row(in, in->loc, &in->st);
}

static int move_to(struct interp *in, uint64_t to)
{
	int err;

	if (!in->t || to < in->loc)
		return -EBADMSG; /* CIEs do not advance; FDEs never go back */
	if (to == in->loc)
		return 0;
	err = emit(in, to);
	if (!err)
		in->loc = to;
	return err;
}

static int advance(struct interp *in, uint64_t delta)
{
	uint64_t to;

	if (__builtin_mul_overflow(delta, in->cie->code_align, &delta) ||
	    __builtin_add_overflow(in->loc, delta, &to))
		return -EOVERFLOW;
	return move_to(in, to);
}

static int remember(struct interp *in, bool push)
{
	if (push) {
		if (in->nsaved == REMEMBER_MAX)
			return -E2BIG;
		in->saved[in->nsaved++] = in->st;
		return 0;
	}
	if (!in->nsaved)
		return -EBADMSG;
	in->st = in->saved[--in->nsaved];
	return 0;
}

/* DW_CFA_def_cfa_register and _offset only change a register-based CFA. */
static int set_cfa(struct interp *in, uint64_t reg, int64_t off, bool set_reg, bool set_off)
{
	if ((!set_reg || !set_off) && in->st.cfa != CFA_REG)
		return -EBADMSG;
	in->st.cfa = CFA_REG;
	if (set_reg)
		in->st.cfa_reg = reg;
	if (set_off)
		in->st.cfa_off = off;
	return 0;
}

static int set_rule(struct interp *in, uint64_t reg, enum rule_kind kind, int64_t off)
{
	struct rule *rule = reg_rule(in, reg);

	if (rule)
		*rule = (struct rule){ kind, kind == RULE_AT_CFA ? off : 0 };
	return 0;
}

static int restore(struct interp *in, uint64_t reg)
{
	struct rule *rule = reg_rule(in, reg);

	if (rule)
		*rule = *init_rule(in, reg);
	return 0;
}

/* Skips a DWARF expression block. */
static void skip_block(struct rd *r)
{
	uint64_t len = rd_uleb(r);

	if (len > r->end - r->pos)
		r->bad = true;
	else
		r->pos += len;
}

/* Reads the PLT's expression, DW_OP_breg7 N; DW_OP_breg16 0; DW_OP_lit15;
 * DW_OP_and; DW_OP_litK; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus, that
 * is rsp + N + ((rip & 15) >= K ? 8 : 0), from the block d. */
static bool plt_expression(struct rd *d, struct frame_state *st)
{
	static const uint8_t tail[] = { OP_lit15, OP_and, 0, OP_ge, OP_lit3, OP_shl, OP_plus };
	const uint8_t *p;
	int64_t off;
	uint8_t k;

	if (rd_uint(d, 1) != OP_breg7)
		return false;
	off = rd_sleb(d);
	if (rd_uint(d, 1) != OP_breg16 || rd_sleb(d) != 0)
		return false;
	p = rd_take(d, sizeof(tail));
	if (!p || d->pos != d->end || off < INT32_MIN || off > INT32_MAX - 8)
		return false;
	k = (uint8_t)(p[2] - OP_lit0);
	if (p[2] < OP_lit0 || k == 0 || k >= PLT_ENTRY || memcmp(p, tail, 2) ||
	    memcmp(p + 3, tail + 3, sizeof(tail) - 3))
		return false;
	st->cfa_off = off;
	st->plt_split = k;
	return true;
}

/* DW_CFA_def_cfa_expression: the PLT's expression, or one not unwound. */
static int cfa_expression(struct interp *in, struct rd *r)
{
	uint64_t len = rd_uleb(r);
	struct rd d = *r;

	if (r->bad || len > r->end - r->pos) {
		r->bad = true;
		return 0;
	}
	d.end = r->pos + len;
	r->pos = d.end;
	in->st.cfa = plt_expression(&d, &in->st) ? CFA_PLT : CFA_EXPR;
	return 0;
}

/* Instructions that set a register's rule: reg, then an operand. */
static int reg_op(struct interp *in, uint8_t op, struct rd *r)
{
	uint64_t reg = rd_uleb(r);
	int64_t off = 0;
	int err = 0;

	switch (op) {
	case CFA_offset_extended:
		err = factor_u(in, rd_uleb(r), &off);
		return err ?: set_rule(in, reg, RULE_AT_CFA, off);
	case CFA_offset_extended_sf:
		err = factor(in, rd_sleb(r), &off);
		return err ?: set_rule(in, reg, RULE_AT_CFA, off);
	case CFA_GNU_negative_offset_extended:
		err = factor_u(in, rd_uleb(r), &off);
		/* the factor can be INT64_MIN, which has no negation */
		if (!err && __builtin_sub_overflow(0, off, &off))
			err = -EOVERFLOW;
		return err ?: set_rule(in, reg, RULE_AT_CFA, off);
	case CFA_val_offset:
		rd_uleb(r);
		return set_rule(in, reg, RULE_OTHER, 0);
	case CFA_val_offset_sf:
		rd_sleb(r);
		return set_rule(in, reg, RULE_OTHER, 0);
	case CFA_register:
		rd_uleb(r);
		return set_rule(in, reg, RULE_OTHER, 0);
	case CFA_expression:
	case CFA_val_expression:
		skip_block(r);
		return set_rule(in, reg, RULE_OTHER, 0);
	}
	return -EOPNOTSUPP;
}

/* Instructions on the CFA. */
static int cfa_op(struct interp *in, uint8_t op, struct rd *r)
{
	uint64_t reg;
	int64_t off = 0;
	int err;

	switch (op) {
	case CFA_def_cfa:
		reg = rd_uleb(r);
		return set_cfa(in, reg, (int64_t)rd_uleb(r), true, true);
	case CFA_def_cfa_sf:
		reg = rd_uleb(r);
		err = factor(in, rd_sleb(r), &off);
		return err ?: set_cfa(in, reg, off, true, true);
	case CFA_def_cfa_register:
		return set_cfa(in, rd_uleb(r), 0, true, false);
	case CFA_def_cfa_offset:
		return set_cfa(in, 0, (int64_t)rd_uleb(r), false, true);
	case CFA_def_cfa_offset_sf:
		err = factor(in, rd_sleb(r), &off);
		return err ?: set_cfa(in, 0, off, false, true);
	case CFA_def_cfa_expression:
		return cfa_expression(in, r);
	}
	return reg_op(in, op, r);
}

/* Instructions on the location and the state stack, then the rest. */
static int extended_op(struct interp *in, uint8_t op, struct rd *r)
{
	switch (op) {
	case CFA_nop:
		return 0;
	case CFA_set_loc:
		return move_to(in, rd_pointer(r, in->cie->fde_enc));
	case CFA_advance_loc1:
		return advance(in, rd_uint(r, 1));
	case CFA_advance_loc2:
		return advance(in, rd_uint(r, 2));
	case CFA_advance_loc4:
		return advance(in, rd_uint(r, 4));
	case CFA_remember_state:
	case CFA_restore_state:
		return remember(in, op == CFA_remember_state);
	case CFA_restore_extended:
		return restore(in, rd_uleb(r));
	case CFA_undefined:
	case CFA_same_value:
		return set_rule(in, rd_uleb(r), op == CFA_undefined ? RULE_UNDEF : RULE_SAME, 0);
	case CFA_GNU_args_size:
		rd_uleb(r);
		return 0;
	}
	return cfa_op(in, op, r);
}

static int step(struct interp *in, struct rd *r)
{
	uint8_t op = (uint8_t)rd_uint(r, 1);
	int64_t off = 0;
	int err;

	switch (op & 0xc0) {
	case CFA_advance_loc:
		return advance(in, op & 0x3f);
	case CFA_offset:
		err = factor_u(in, rd_uleb(r), &off);
		return err ?: set_rule(in, op & 0x3f, RULE_AT_CFA, off);
	case CFA_restore:
		return restore(in, op & 0x3f);
	}
	return extended_op(in, op, r);
}

/* Runs instructions [pos, end) until the location leaves the FDE. */
static int run_program(struct interp *in, size_t pos, size_t end)
{
	struct rd r = { in->s, pos, end, false };
	size_t n;
	int err = 0;

	for (n = 0; !err && r.pos < r.end && in->loc < in->end; n++) {
		if (n == INSNS_PER_PROGRAM_MAX)
			return -E2BIG;
		err = step(in, &r);
		if (!err && r.bad)
			err = -EBADMSG;
	}
	return err;
}

/* ---- pass 1: entries ---- */

static int add_cie(struct parse *p, const struct entry *e)
{
	struct cie *c = grow(p->cies, &p->cies_cap, p->ncies, sizeof(*c));
	struct interp in;

	if (!c)
		return -ENOMEM;
	p->cies = c;
	c = &p->cies[p->ncies++];
	*c = (struct cie){ .off = e->start };
	if (parse_cie_fields(p->s, e, c))
		return 0; /* its FDEs will count as bad */
	in = (struct interp){ .s = p->s, .cie = c, .init = &default_state };
	in.st = default_state;
	in.end = 1; /* room for instructions at location 0 */
	if (run_program(&in, c->insns, c->end))
		return 0;
	c->init = in.st;
	c->ok = true;
	return 0;
}

static int add_fde_off(struct parse *p, size_t off)
{
	size_t *v = grow(p->fde_offs, &p->fde_offs_cap, p->nfde_offs, sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->fde_offs = v;
	p->fde_offs[p->nfde_offs++] = off;
	return 0;
}

/* Walks the entries up to the terminator; stops early, keeping what it
 * found, at one it cannot delimit. */
static int walk_entries(struct parse *p)
{
	struct entry e;
	size_t pos = 0;
	int rc, err;

	while ((rc = read_entry(p->s, pos, &e)) == 1) {
		err = e.is_cie ? add_cie(p, &e) : add_fde_off(p, e.start);
		if (err)
			return err;
		pos = e.end;
	}
	if (rc < 0)
		p->t->stats.truncated = true;
	return 0;
}

/* ---- pass 2: FDE headers ---- */

static const struct cie *find_cie(const struct parse *p, size_t off)
{
	size_t lo = 0, hi = p->ncies, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->ncies && p->cies[lo].off == off && p->cies[lo].ok)
		return &p->cies[lo];
	return NULL;
}

/* The CIE of the FDE entry e: .eh_frame points back from the field,
 * .debug_frame gives the section offset. */
static const struct cie *fde_cie(const struct parse *p, const struct entry *e)
{
	if (p->s->debug_frame)
		return e->id < p->s->len ? find_cie(p, (size_t)e->id) : NULL;
	return e->id <= e->id_pos ? find_cie(p, e->id_pos - (size_t)e->id) : NULL;
}

/* Clips [begin, end) to the executable segment it starts in. */
static bool in_code(const struct code_map *code, struct fde *f)
{
	size_t i;

	if (!code)
		return true;
	for (i = 0; i < code->nsegs; i++) {
		if (f->begin >= code->segs[i].start && f->begin < code->segs[i].end) {
			if (f->end > code->segs[i].end)
				f->end = code->segs[i].end;
			return true;
		}
	}
	return false;
}

/* Decodes the FDE at off. Returns 0, -ENODATA for an empty range (left out
 * silently: linkers leave such FDEs for discarded code), or -EBADMSG. */
static int parse_fde(const struct parse *p, size_t off, struct fde *f)
{
	struct entry e;
	struct rd r = { p->s, 0, 0, false };
	uint64_t range;

	if (read_entry(p->s, off, &e) != 1 || !(f->cie = fde_cie(p, &e)))
		return -EBADMSG;
	r.pos = e.body;
	r.end = e.end;
	f->begin = rd_pointer(&r, f->cie->fde_enc);
	range = rd_format(&r, f->cie->fde_enc);
	if (f->cie->aug_data)
		skip_block(&r);
	if (r.bad || __builtin_add_overflow(f->begin, range, &f->end))
		return -EBADMSG;
	f->insns = r.pos;
	f->insns_end = e.end;
	if (!range)
		return -ENODATA;
	return in_code(p->code, f) ? 0 : -EBADMSG;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return 0;
}

static int decode_fdes(struct parse *p)
{
	size_t i;
	int err;

	p->fdes = calloc(p->nfde_offs ? p->nfde_offs : 1, sizeof(*p->fdes));
	if (!p->fdes)
		return -ENOMEM;
	for (i = 0; i < p->nfde_offs; i++) {
		err = parse_fde(p, p->fde_offs[i], &p->fdes[p->nfdes]);
		if (!err)
			p->nfdes++;
		else if (err != -ENODATA)
			p->t->stats.nfdes_bad++;
	}
	qsort(p->fdes, p->nfdes, sizeof(*p->fdes), cmp_fde);
	return 0;
}

/* ---- pass 3: rows ---- */

static struct unwind_row none_row(uint64_t pc)
{
	return (struct unwind_row){ .pc = pc, .kind = UNWIND_NONE };
}

/* The rows of one FDE, then a "no info" row at its end, which the next FDE
 * replaces if it starts there. A program that fails leaves its rows so far
 * and "no info" from where it failed: the rows before do not depend on the
 * instructions after. */
static int fde_rows(struct parse *p, const struct fde *f)
{
	struct interp in = { .s = p->s, .cie = f->cie, .init = &f->cie->init, .t = p->t };
	int err;

	in.st = f->cie->init;
	in.loc = f->begin;
	in.end = f->end;
	err = run_program(&in, f->insns, f->insns_end);
	if (!err)
		err = emit(&in, in.end);
	if (err == -ENOMEM || err == -EFBIG)
		return err;
	if (err) {
		p->t->stats.nfdes_bad++;
		err = table_add(p->t, none_row(in.loc));
		if (err)
			return err;
	} else {
		p->t->stats.nfdes++;
	}
	return table_add(p->t, none_row(f->end));
}

/* Bytes of [start, end) inside the executable sections. */
static uint64_t code_overlap(const struct code_map *code, uint64_t start, uint64_t end)
{
	uint64_t n = 0, lo, hi;
	size_t i;

	for (i = 0; i < code->nsecs; i++) {
		lo = start > code->secs[i].start ? start : code->secs[i].start;
		hi = end < code->secs[i].end ? end : code->secs[i].end;
		n += hi > lo ? hi - lo : 0;
	}
	return n;
}

/* Counts the last row passed, which ends where next begins (the table's
 * last row, next NULL, covers nothing), and makes next the last. */
static void count_last(struct parse *p, const struct unwind_row *next)
{
	struct unwind_table *t = p->t;
	const struct unwind_row *r = &t->last;

	if (t->counted) {
		t->stats.nrows[r->kind]++;
		if (p->code)
			t->stats.code_bytes_by[r->kind] +=
				code_overlap(p->code, r->pc, next ? next->pc : r->pc);
	}
	t->counted = next != NULL;
	if (next)
		t->last = *next;
}

/* Rows [0, n) are final: counted, then given to the sink, if any, and let
 * go. Each row is passed once. */
static int pass_rows(struct parse *p, size_t n)
{
	struct unwind_table *t = p->t;
	int err;

	for (size_t i = 0; i < n; i++)
		count_last(p, &t->rows[i]);
	if (!t->sink || !n)
		return 0;
	err = t->sink->rows(t->sink->ctx, t->rows, n);
	if (err)
		return err;
	t->nrows -= n;
	memmove(t->rows, t->rows + n, t->nrows * sizeof(*t->rows));
	t->nsent += n;
	return 0;
}

/* Between FDEs, every row is final but the last two: the next FDE's first
 * row can replace the last (table_add), then merge into the one before,
 * never reach further back. */
static int build_rows(struct parse *p)
{
	struct unwind_table *t = p->t;
	uint64_t covered = 0;
	size_t i;
	int err;

	for (i = 0; i < p->nfdes; i++) {
		/* Overlapping FDEs: the first one wins. */
		if (i && p->fdes[i].begin < covered) {
			t->stats.nfdes_bad++;
			continue;
		}
		err = fde_rows(p, &p->fdes[i]);
		if (!err && t->sink && t->nrows > SINK_BATCH)
			err = pass_rows(p, t->nrows - 2);
		if (err)
			return err;
		covered = p->fdes[i].end;
	}
	err = pass_rows(p, t->nrows);
	if (!err)
		count_last(p, NULL);
	return err;
}

/* The stats' totals, once every row is counted. */
static void sum_code_bytes(struct unwind_stats *st, const struct code_map *code)
{
	size_t i;

	for (i = 0; code && i < code->nsecs; i++)
		st->code_bytes += code->secs[i].end - code->secs[i].start;
	st->code_bytes_by[UNWIND_NONE] = st->code_bytes;
	for (i = 1; i < UNWIND_KIND_COUNT; i++)
		st->code_bytes_by[UNWIND_NONE] -= st->code_bytes_by[i];
}

static void parse_free(struct parse *p)
{
	free(p->cies);
	free(p->fde_offs);
	free(p->fdes);
}

/* Parses s into a new table, its rows to sink if not NULL. Returns 0,
 * -EBADMSG when nothing in s could be used although it holds entries,
 * -ENOENT when it holds no FDE, or -errno (the sink's too). */
static int parse_section(const struct section *s, const struct code_map *code,
			 const struct unwind_sink *sink, struct unwind_table **out)
{
	struct parse p = { .s = s, .code = code };
	int err = -ENOMEM;

	p.t = calloc(1, sizeof(*p.t));
	if (!p.t)
		goto free_parse;
	p.t->sink = sink;
	p.t->frameless_only = s->frameless_only;
	p.t->stats.debug_frame = s->debug_frame;
	err = walk_entries(&p);
	if (!err)
		err = decode_fdes(&p);
	if (!err)
		err = build_rows(&p);
	if (!err && !p.t->nsent && !p.t->nrows)
		err = p.t->stats.nfdes_bad || p.t->stats.truncated ? -EBADMSG : -ENOENT;
	if (err)
		goto free_parse;
	sum_code_bytes(&p.t->stats, code);
	if (sink)
		unwind_table__drop_rows(p.t);
	*out = p.t;
	p.t = NULL;
free_parse:
	unwind_table__free(p.t);
	parse_free(&p);
	return err;
}

int unwind_table__parse(const void *buf, size_t len, uint64_t vaddr, bool debug_frame,
			struct unwind_table **out)
{
	struct section s = { buf, len, vaddr, debug_frame };

	*out = NULL;
	return parse_section(&s, NULL, NULL, out);
}

/* ---- ELF ---- */

static int add_range(struct range **v, size_t *n, uint64_t start, uint64_t size)
{
	struct range *nv;

	if (!size || start + size < start)
		return 0;
	nv = reallocarray(*v, *n + 1, sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = (struct range){ start, start + size };
	return 0;
}

static int add_load(struct code_map *code, const GElf_Phdr *ph)
{
	struct unwind_load *v = reallocarray(code->loads, code->nloads + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	code->loads = v;
	v[code->nloads++] = (struct unwind_load){ ph->p_offset, ph->p_vaddr, ph->p_filesz };
	return 0;
}

static int read_segments(Elf *elf, struct code_map *code)
{
	size_t i, n;
	GElf_Phdr ph;
	int err;

	if (elf_getphdrnum(elf, &n))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return -EBADMSG;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		err = add_range(&code->segs, &code->nsegs, ph.p_vaddr, ph.p_memsz);
		if (err)
			return err;
		err = add_load(code, &ph);
		if (err)
			return err;
	}
	return 0;
}

static int read_code_sections(Elf *elf, struct code_map *code)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -EBADMSG;
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		err = add_range(&code->secs, &code->nsecs, sh.sh_addr, sh.sh_size);
		if (err)
			return err;
	}
	return 0;
}

/* Without section headers, coverage counts the executable segments. */
static int segments_as_sections(struct code_map *code)
{
	size_t i;
	int err;

	for (i = 0; i < code->nsegs; i++) {
		err = add_range(&code->secs, &code->nsecs, code->segs[i].start,
				code->segs[i].end - code->segs[i].start);
		if (err)
			return err;
	}
	return 0;
}

static int check_elf(Elf *elf)
{
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64)
		return -EOPNOTSUPP;
	return eh.e_type == ET_EXEC || eh.e_type == ET_DYN ? 0 : -EOPNOTSUPP;
}

/* The section named name with contents (not empty), or NULL. gas marks .eh_frame
 * SHT_X86_64_UNWIND in objects; linkers usually make it SHT_PROGBITS. */
static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || !sh->sh_size ||
		    (sh->sh_type != SHT_PROGBITS && sh->sh_type != SHT_X86_64_UNWIND))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* The bytes of a section; a compressed one (.debug_frame can be) is
 * decompressed first. */
static int section_bytes(Elf_Scn *scn, const GElf_Shdr *sh, bool debug_frame, struct section *s)
{
	Elf_Data *d;

	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return -EBADMSG;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return -EBADMSG;
	*s = (struct section){ d->d_buf, d->d_size, sh->sh_addr, debug_frame };
	return 0;
}

static int parse_named(Elf *elf, const char *name, bool frameless_only, const struct code_map *code,
		       const struct unwind_sink *sink, struct unwind_table **out)
{
	struct section s;
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, name, &sh);
	int err;

	if (!scn)
		return -ENOENT;
	err = section_bytes(scn, &sh, strcmp(name, ".debug_frame") == 0, &s);
	s.frameless_only = frameless_only;
	return err ?: parse_section(&s, code, sink, out);
}

/* The loadable bytes from vaddr to the end of the PT_LOAD holding it. */
static int segment_bytes(Elf *elf, uint64_t vaddr, struct section *s)
{
	size_t i, n;
	GElf_Phdr ph;
	Elf_Data *d;

	if (elf_getphdrnum(elf, &n))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + (vaddr - ph.p_vaddr)),
					 ph.p_filesz - (vaddr - ph.p_vaddr), ELF_T_BYTE);
		if (!d || !d->d_buf)
			return -EBADMSG;
		*s = (struct section){ d->d_buf, d->d_size, vaddr, false };
		return 0;
	}
	return -ENOENT;
}

/* The first program header of the type. Returns 0, -ENOENT or -EBADMSG. */
static int find_phdr(Elf *elf, uint32_t type, GElf_Phdr *ph)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(elf, (int)i, ph) && ph->p_type == type)
			return 0;
	}
	return -ENOENT;
}

/* Without section headers, .eh_frame is found through PT_GNU_EH_FRAME: the
 * .eh_frame_hdr it maps starts with a pointer to it. Its end is not known:
 * the walk runs to the end of the segment or to the terminator. */
static int eh_frame_from_hdr(Elf *elf, struct section *s)
{
	GElf_Phdr ph;
	Elf_Data *d;
	struct section hdr;
	struct rd r;
	uint64_t vaddr;
	uint8_t enc;
	int err = find_phdr(elf, PT_GNU_EH_FRAME, &ph);

	if (err)
		return err;
	d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
	if (!d || !d->d_buf)
		return -EBADMSG;
	hdr = (struct section){ d->d_buf, d->d_size, ph.p_vaddr, false };
	r = (struct rd){ &hdr, 0, hdr.len, false };
	if (rd_uint(&r, 1) != 1) /* version */
		return -EBADMSG;
	enc = (uint8_t)rd_uint(&r, 1);
	rd_uint(&r, 2); /* the search table's encodings */
	vaddr = rd_pointer(&r, enc);
	return r.bad ? -EBADMSG : segment_bytes(elf, vaddr, s);
}

/* A Go program: its own linker's, with only a .debug_frame. Go keeps
 * frame pointers, and its runtime's assembly switches stacks where that
 * .debug_frame describes the stack it left: time.now on the system stack,
 * calling the vDSO, read a nanosecond count as its return address there
 * (a Go 1.19 program reading the clock: 1901 of 2088 stacks cut after
 * time.now). By frame pointers its stacks end at runtime.goexit's 0; its
 * rows are kept only where a function has no frame (frameless()). */
static bool go_binary(Elf *elf)
{
	GElf_Shdr sh;

	return find_section(elf, ".gopclntab", &sh) || find_section(elf, ".go.buildinfo", &sh);
}

static int parse_elf(Elf *elf, const struct code_map *code, const struct unwind_sink *sink,
		     struct unwind_table **out)
{
	struct section s;
	size_t nsec = 0;
	int err;

	if (elf_getshdrnum(elf, &nsec) || nsec == 0) {
		err = eh_frame_from_hdr(elf, &s);
		return err ?: parse_section(&s, code, sink, out);
	}
	/* An .eh_frame without FDEs (code built with -fno-asynchronous-unwind-tables
	 * keeps only the terminator): .debug_frame, if any, knows more. */
	err = parse_named(elf, ".eh_frame", false, code, sink, out);
	if (err == -ENOENT)
		err = parse_named(elf, ".debug_frame", go_binary(elf), code, sink, out);
	return err;
}

int unwind_table__build(int fd, struct unwind_table **out)
{
	return unwind_table__build_to(fd, NULL, out);
}

int unwind_table__build_to(int fd, const struct unwind_sink *sink, struct unwind_table **out)
{
	struct code_map code = { 0 };
	Elf *elf;
	int err;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	err = check_elf(elf);
	if (!err)
		err = read_segments(elf, &code);
	if (!err)
		err = read_code_sections(elf, &code);
	if (!err && !code.nsecs)
		err = segments_as_sections(&code);
	if (!err)
		err = parse_elf(elf, &code, sink, out);
	if (!err) {
		(*out)->loads = code.loads;
		(*out)->nloads = code.nloads;
		code.loads = NULL;
	}
	free(code.loads);
	free(code.segs);
	free(code.secs);
	elf_end(elf);
	return err;
}

/* ---- queries ---- */

const struct unwind_row *unwind_table__rows(const struct unwind_table *t, size_t *n)
{
	*n = t->nrows;
	return t->rows;
}

const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nrows, mid;

	/* The first row above pc; the one before it covers pc. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

int unwind_table__bias(const struct unwind_table *t, uint64_t start, uint64_t end, uint64_t offset,
		       uint64_t *bias)
{
	for (size_t i = 0; i < t->nloads; i++) {
		const struct unwind_load *l = &t->loads[i];

		/* a segment's first page is mapped from below its offset */
		if (offset < l->off + l->filesz && l->off < offset + (end - start)) {
			*bias = start - offset + l->off - l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

const struct unwind_stats *unwind_table__stats(const struct unwind_table *t)
{
	return &t->stats;
}

void unwind_table__drop_rows(struct unwind_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nrows = t->cap = 0;
}

void unwind_table__free(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->loads);
	free(t);
}
