/* Parts of a function that gcc splits off under a symbol of their own:
 * "f.cold" (or "f.cold.3") holds f's unlikely paths, reached by a jump from
 * f and never called. They are not functions: a probe at their start sees
 * no return address on the stack. */
#ifndef FLAMEBPF_FRAGMENTS_H
#define FLAMEBPF_FRAGMENTS_H

#include <stdbool.h>

/* Whether the symbol name is a split-off part of some function. */
bool fragment__is(const char *name);

/* Whether the symbol name is a split-off part of the function sym. */
bool fragment__of(const char *name, const char *sym);

#endif
