// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "beam_jit.h"
#include "elf_object.h"
#include "proc_root.h"

/* GDB's JIT interface (gdb/doc "JIT Interface"): the descriptor the
 * program exports, and its list of entries. */
struct jit_descriptor {
	uint32_t version;
	uint32_t action;
	uint64_t relevant;
	uint64_t first;
};

struct jit_entry {
	uint64_t next, prev;
	uint64_t symfile, size;
};

/* OTP's symbol file, as its JIT lays it out on a 64-bit machine: a header
 * word (0: the emulator's settings, 1: a module) padded to 8; a module's
 * code address, range count, code size and name; then its ranges, each
 * with its offsets in the code, a line count, its name and its lines.
 * Every record is a C struct whose last field, the name, starts before the
 * struct's padded end: the next record starts at the padded size plus the
 * name's length (which counts its NUL). */
#define SYM_EMULATOR 0
#define SYM_MODULE   1
#define EMU_LAYOUT   8	/* int: 1 when its frames keep frame pointers */
#define EMU_EXIT     16 /* the normal exit's address */
#define MODULE_AT    8	/* after the header word */
#define MODULE_NAME  18 /* u64 base, u32 ranges, u32 size, u16 name length */
#define MODULE_SIZE  24
#define RANGE_NAME   14 /* u32 start, u32 end, u32 lines, u16 name length */
#define RANGE_SIZE   16
#define LINE_NAME    10 /* u32 offset, u32 line, u16 file name length */
#define LINE_SIZE    12
#define NAME_MAX_OTP (PERFMAP_MAX_NAME - 1)

int beam_jit__locate(int root, const struct map_entry *m, uint64_t *descriptor)
{
	static const char *const names[] = { "__jit_debug_descriptor" };
	uint64_t at, start;
	int fd = proc_root__open(root, m->path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return fd;
	err = elf_object__find(fd, names, 1, &at);
	if (!err)
		err = elf_object__vaddr(fd, m->offset, &start);
	close(fd);
	if (err || !at)
		return err ? err : -ENOENT;
	*descriptor = m->start - start + at;
	return 0;
}

/* A bounded view of one symbol file. */
struct symfile {
	const uint8_t *p;
	size_t len;
};

static bool get_u16(const struct symfile *f, size_t at, uint16_t *v)
{
	if (at > f->len || f->len - at < sizeof(*v))
		return false;
	memcpy(v, f->p + at, sizeof(*v));
	return true;
}

static bool get_u32(const struct symfile *f, size_t at, uint32_t *v)
{
	if (at > f->len || f->len - at < sizeof(*v))
		return false;
	memcpy(v, f->p + at, sizeof(*v));
	return true;
}

/* The name of len bytes (its NUL counted) at at: its length without the
 * NUL, or -1 when it does not fit in the file. */
static long name_len(const struct symfile *f, size_t at, uint16_t len)
{
	if (!len || at > f->len || f->len - at < len)
		return -1;
	return (long)strnlen((const char *)f->p + at, len);
}

/* One range, at *at: "$NAME" from base + start, moved past it and its
 * lines. Returns 0, -EINVAL when it does not fit, or -ENOMEM. */
static int add_range(struct perfmap *m, const struct symfile *f, size_t *at, uint64_t base,
		     uint32_t code_size)
{
	uint32_t start, end, lines;
	char name[PERFMAP_MAX_NAME];
	uint16_t len, flen;
	long n;

	if (!get_u32(f, *at, &start) || !get_u32(f, *at + 4, &end) ||
	    !get_u32(f, *at + 8, &lines) || !get_u16(f, *at + 12, &len) ||
	    (n = name_len(f, *at + RANGE_NAME, len)) < 0 || start > end || end > code_size)
		return -EINVAL;
	name[0] = '$';
	if (n > NAME_MAX_OTP)
		n = NAME_MAX_OTP;
	memcpy(name + 1, f->p + *at + RANGE_NAME, (size_t)n);
	*at += RANGE_SIZE + len;
	for (uint32_t i = 0; i < lines; i++) {
		if (!get_u16(f, *at + 8, &flen) || name_len(f, *at + LINE_NAME, flen) < 0)
			return -EINVAL;
		*at += LINE_SIZE + flen;
	}
	return perfmap__add(m, base + start, end - start, name, (size_t)n + 1);
}

/* The emulator's record: how its frames are laid out, where they end. */
static int read_emulator(const struct symfile *f, struct beam_jit_info *info)
{
	uint32_t layout;

	if (!get_u32(f, EMU_LAYOUT, &layout) || f->len < EMU_EXIT + sizeof(info->normal_exit))
		return -EINVAL;
	memcpy(&info->normal_exit, f->p + EMU_EXIT, sizeof(info->normal_exit));
	info->frame_pointers = layout == 1;
	info->emulator = true;
	return 0;
}

static void widen(struct beam_jit_info *info, uint64_t base, uint32_t code_size)
{
	if (!info->code_hi || base < info->code_lo)
		info->code_lo = base;
	if (base + code_size > info->code_hi)
		info->code_hi = base + code_size;
}

/* A module's ranges into m. */
static int add_symfile(struct perfmap *m, const struct symfile *f, struct beam_jit_info *info)
{
	uint32_t kind, nranges, code_size;
	uint16_t len;
	uint64_t base;
	size_t at;
	int err = 0;

	if (!get_u32(f, 0, &kind))
		return -EINVAL;
	if (kind == SYM_EMULATOR)
		return read_emulator(f, info);
	if (kind != SYM_MODULE)
		return 0;
	if (!get_u32(f, MODULE_AT + 8, &nranges) || !get_u32(f, MODULE_AT + 12, &code_size) ||
	    !get_u16(f, MODULE_AT + 16, &len) || name_len(f, MODULE_AT + MODULE_NAME, len) < 0)
		return -EINVAL;
	memcpy(&base, f->p + MODULE_AT, sizeof(base));
	if (base + code_size < base)
		return -EINVAL;
	widen(info, base, code_size);
	at = MODULE_AT + MODULE_SIZE + len;
	for (uint32_t i = 0; i < nranges && !err; i++)
		err = add_range(m, f, &at, base, code_size);
	return err;
}

/* Room for len bytes in *buf. */
static int grow(uint8_t **buf, size_t *cap, size_t len)
{
	uint8_t *b;

	if (len <= *cap)
		return 0;
	b = realloc(*buf, len);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*cap = len;
	return 0;
}

/* The symbol file of e into m. Returns 0, -ENOMEM, or another error when
 * it cannot be read or makes no sense. */
static int add_entry(const struct proc_mem *mem, const struct jit_entry *e, struct perfmap *m,
		     struct beam_jit_info *info, uint8_t **buf, size_t *cap)
{
	int err;

	if (!e->symfile || e->size < MODULE_AT || e->size > BEAM_JIT_MAX_SYMFILE)
		return -EINVAL;
	err = grow(buf, cap, e->size) ?: mem->read(mem->arg, e->symfile, *buf, e->size);
	if (err)
		return err;
	return add_symfile(m, &(struct symfile){ *buf, e->size }, info);
}

/* The list's entries from first, newest first as the JIT adds them, into
 * *v. Returns 0, -ENOMEM, or -EAGAIN when it could not be read to its end
 * (the list was changing). */
static int read_list(const struct proc_mem *mem, uint64_t first, struct jit_entry **v, size_t *n)
{
	struct jit_entry e;
	size_t cap = 0;

	for (uint64_t addr = first; addr; addr = e.next) {
		/* back at the start: a list changed under us, or not a list */
		if ((*n && addr == first) || *n == BEAM_JIT_MAX_MODULES ||
		    mem->read(mem->arg, addr, &e, sizeof(e)))
			return -EAGAIN;
		if (array__push((void **)v, n, &cap, &e, sizeof(e)))
			return -ENOMEM;
	}
	return 0;
}

/* Every entry of the list from first into m, the oldest first: a module's
 * code may lie where a module purged before had its own, and the list may
 * still hold that one. Returns 0, -ENOMEM, or -EAGAIN when some could not
 * be read (the list was changing). */
static int walk(const struct proc_mem *mem, uint64_t first, struct perfmap *m,
		struct beam_jit_info *info)
{
	struct jit_entry *v = NULL;
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;
	int err = read_list(mem, first, &v, &n), one;
	bool torn = err == -EAGAIN;

	for (size_t i = n; i-- > 0 && err != -ENOMEM;) {
		one = add_entry(mem, &v[i], m, info, &buf, &cap);
		err = one == -ENOMEM ? one : err;
		torn |= one != 0;
	}
	free(buf);
	free(v);
	return err == -ENOMEM ? err : torn ? -EAGAIN : 0;
}

/* How much of the newest module's record the stamp covers: its header,
 * code address, sizes and the start of its name. */
#define STAMP_BYTES 64

/* What changes whenever the JIT registers or drops code: the descriptor and
 * the newest entry with the start of its record. Not the descriptor alone:
 * OTP frees a purged module's entry, and malloc may give its address to
 * the next module's, leaving first and action as they were. */
static uint64_t stamp_of(const struct proc_mem *mem, const struct jit_descriptor *d)
{
	uint64_t s = hash_mix(d->first ^ (d->relevant * 0x9e3779b97f4a7c15ULL) ^ d->action);
	uint64_t head[STAMP_BYTES / 8] = { 0 };
	struct jit_entry e;

	if (d->first && !mem->read(mem->arg, d->first, &e, sizeof(e))) {
		size_t len = e.size < sizeof(head) ? e.size : sizeof(head);

		s = hash_mix(s ^ e.symfile) ^ hash_mix(e.size);
		if (len && !mem->read(mem->arg, e.symfile, head, len))
			for (size_t i = 0; i < STAMP_BYTES / 8; i++)
				s = hash_mix(s ^ head[i]);
	}
	return s ? s : 1;
}

int beam_jit__read(const struct proc_mem *mem, uint64_t descriptor, uint64_t *stamp,
		   const struct perfmap *held, struct perfmap **out, struct beam_jit_info *info)
{
	struct jit_descriptor d;
	struct perfmap *m;
	uint64_t now;
	int err;

	*out = NULL;
	err = mem->read(mem->arg, descriptor, &d, sizeof(d));
	if (err)
		return -EFAULT;
	if (d.version != 1)
		return -EPROTO;
	now = stamp_of(mem, &d);
	if (*stamp == now)
		return 1;
	m = perfmap__new();
	if (!m)
		return -ENOMEM;
	memset(info, 0, sizeof(*info));
	err = walk(mem, d.first, m, info);
	*stamp = err ? 0 : now;
	if (err == -EAGAIN)
		err = 0;
	if (!err)
		err = perfmap__seal(m);
	/* a node that exits frees its list as it is read: a torn read that
	 * names fewer functions than held would only lose names */
	if (!err && !*stamp && held && perfmap__count(m) < perfmap__count(held))
		err = 1;
	if (err) {
		perfmap__free(m);
		return err;
	}
	*out = m;
	return 0;
}
