/* Go's own function table (.gopclntab), which Go binaries keep when
 * stripped: the runtime needs it for tracebacks. Debian strips its Go
 * programs, so without it their frames would be bare addresses. */
#ifndef FLAMEBPF_GO_PCLNTAB_H
#define FLAMEBPF_GO_PCLNTAB_H

#include <stddef.h>
#include <stdint.h>

/* One function: [entry, end) in link-time addresses, its name (len bytes,
 * not NUL-terminated, inside the table). Returns 0 to go on, or -errno to
 * stop the walk with that error. */
typedef int (*go_pclntab_func_cb)(void *arg, uint64_t entry, uint64_t end, const char *name,
				  size_t len);

/* Calls cb for each function of the table in data (the section's bytes),
 * in address order. text is the address of the .text section, for tables
 * whose own base address is left to a relocation (PIE). Reads Go 1.2 to
 * 1.24 layouts. Returns 0, -ENOEXEC for a table it cannot read (another
 * magic, out of bounds), or cb's error. */
int go_pclntab__funcs(const uint8_t *data, size_t size, uint64_t text, go_pclntab_func_cb cb,
		      void *arg);

#endif
