// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include "disasm.h"

/* The build names the library by its soname (Makefile). */
#ifndef CAPSTONE_SONAME
#define CAPSTONE_SONAME "libcapstone.so"
#endif

struct disasm {
	void *lib;
	csh cs;
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *handle);
	cs_err (*option)(csh handle, cs_opt_type type, size_t value);
	cs_err (*close)(csh *handle);
	cs_insn *(*malloc)(csh handle);
	void (*free)(cs_insn *insn, size_t count);
	bool (*iter)(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
		     cs_insn *insn);
	cs_err (*regs_access)(csh handle, const cs_insn *insn, cs_regs regs_read,
			      uint8_t *regs_read_count, cs_regs regs_write,
			      uint8_t *regs_write_count);
};

/* Each of capstone's functions that the readers of code call. */
static bool find_calls(struct disasm *d)
{
#define FIND(field, sym) (d->field = (__typeof__(d->field))dlsym(d->lib, sym))
	return FIND(open, "cs_open") && FIND(option, "cs_option") && FIND(close, "cs_close") &&
	       FIND(malloc, "cs_malloc") && FIND(free, "cs_free") && FIND(iter, "cs_disasm_iter") &&
	       FIND(regs_access, "cs_regs_access");
#undef FIND
}

int disasm__new(struct disasm **out)
{
	struct disasm *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->lib = dlopen(CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!d->lib || !find_calls(d) || d->open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK)
		goto no_disasm;
	d->option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	*out = d;
	return 0;

no_disasm:
	if (d->lib)
		dlclose(d->lib);
	free(d);
	return -ENOTSUP;
}

void disasm__free(struct disasm *d)
{
	if (!d)
		return;
	d->close(&d->cs);
	dlclose(d->lib);
	free(d);
}

cs_insn *disasm__insn_new(struct disasm *d)
{
	return d->malloc(d->cs);
}

void disasm__insn_free(struct disasm *d, cs_insn *insn)
{
	if (insn)
		d->free(insn, 1);
}

bool disasm__next(struct disasm *d, const uint8_t **code, size_t *left, uint64_t *addr,
		  cs_insn *insn)
{
	return d->iter(d->cs, code, left, addr, insn);
}

bool disasm__regs(struct disasm *d, const cs_insn *insn, cs_regs rd, uint8_t *nrd, cs_regs wr,
		  uint8_t *nwr)
{
	return d->regs_access(d->cs, insn, rd, nrd, wr, nwr) == CS_ERR_OK;
}
