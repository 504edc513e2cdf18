/* Kernel symbols from /proc/kallsyms. */
#ifndef FLAMEBPF_KALLSYMS_H
#define FLAMEBPF_KALLSYMS_H

#include <stdint.h>

struct kallsyms;

/* Loads the text symbols (types t/T/w/W) of a kallsyms file. Returns 0,
 * -EPERM when every address reads as zero (kptr_restrict), or -errno. */
int kallsyms__load(const char *path, struct kallsyms **out);

/* The symbol containing addr and addr's offset from it, or NULL.
 * Module symbols keep their name without the "[module]" suffix. */
const char *kallsyms__lookup(const struct kallsyms *k, uint64_t addr, uint64_t *off);

void kallsyms__free(struct kallsyms *k);

#endif
