/* The stubs of an x86-64 ELF file's procedure linkage table (.plt,
 * .plt.sec, .plt.got), each named after the function it jumps to, as
 * perf and objdump name them ("strlen@plt"). */
#ifndef FLAMEBPF_ELF_PLT_H
#define FLAMEBPF_ELF_PLT_H

#include <gelf.h>
#include <stdint.h>

/* One stub: [vaddr, vaddr + size) jumps through a GOT slot to name (a
 * dynamic symbol), or, for an IFUNC of the file itself (R_X86_64_IRELATIVE,
 * name NULL), to what the resolver at resolver returns. */
struct elf_plt_stub {
	uint64_t vaddr, size;
	const char *name; /* lives as long as the Elf handle */
	uint64_t resolver;
};

typedef int (*elf_plt_fn)(void *arg, const struct elf_plt_stub *stub);

/* Calls fn on each stub whose GOT slot a relocation names, in section
 * order, until fn returns nonzero. Returns that value, 0 after the last
 * (also when the file has no PLT or no section headers), or -ENOMEM. A
 * malformed section yields fewer stubs, never an error. */
int elf_plt__each(Elf *elf, elf_plt_fn fn, void *arg);

#endif
