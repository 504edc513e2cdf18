/* Source lines and inlined calls of code addresses, from the DWARF of a
 * binary or of its separate debug file (libdw), for --file-line and
 * --inline. */
#ifndef FLAMEBPF_SRCLINE_H
#define FLAMEBPF_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

#define SRCLINE_MAX_INLINE 8 /* inlined calls shown per address, innermost kept */

/* One function at an address: the real one, or one inlined into it. */
struct srcline_frame {
	const char *func; /* DWARF name (linkage name when there is one); NULL for
			   * the real function, which the symbol table names */
	const char *file; /* basename of the source file; NULL when unknown */
	int line;	  /* 0 when unknown */
};

struct srcline;

/* Reads the DWARF of the ELF file open on fd (kept open and owned by the
 * caller, for as long as the srcline lives). Returns 0, -ENOENT when it has
 * none, or -errno. */
int srcline__open(int fd, struct srcline **out);

/* The functions at the link-time address vaddr, outermost first: the real
 * function (func NULL), with the line where it called the first inlined one
 * (or vaddr's own line), then each inlined function with the line of the
 * next call, the innermost with vaddr's line. At most max (>= 1) entries:
 * the outermost and the innermost max - 1 are kept. Strings live as long as
 * the srcline. Returns the count, 0 when the DWARF does not cover vaddr. */
size_t srcline__lookup(struct srcline *s, uint64_t vaddr, struct srcline_frame *out, size_t max);

void srcline__free(struct srcline *s);

#endif
