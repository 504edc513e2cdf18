/* An x86-64 disassembler (capstone, with instruction details), loaded at
 * the first one made: libcapstone's tables are 3.2 MiB of pages once
 * mapped, and only the uprobe modes read code, so linking it would put
 * them in every run's RSS. */
#ifndef FLAMEBPF_DISASM_H
#define FLAMEBPF_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <capstone/capstone.h>

struct disasm;

/* Returns 0 or -ENOMEM / -ENOTSUP (no x86-64 disassembler: libcapstone
 * missing or without x86). The library stays loaded once opened: a capture
 * that disassembles does it for binary after binary. */
int disasm__new(struct disasm **out);
void disasm__free(struct disasm *d);

/* An instruction for disasm__next to fill; NULL when out of memory. */
cs_insn *disasm__insn_new(struct disasm *d);
void disasm__insn_free(struct disasm *d, cs_insn *insn);

/* Decodes the instruction at *code (address *addr) into insn and moves
 * the three past it, as cs_disasm_iter; false when it cannot. */
bool disasm__next(struct disasm *d, const uint8_t **code, size_t *left, uint64_t *addr,
		  cs_insn *insn);

/* The registers insn reads and writes (cs_regs_access); false when
 * unknown. */
bool disasm__regs(struct disasm *d, const cs_insn *insn, cs_regs rd, uint8_t *nrd, cs_regs wr,
		  uint8_t *nwr);

#endif
