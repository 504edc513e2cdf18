/* Kernel symbols from /proc/kallsyms. */
#ifndef FLAMEBPF_KALLSYMS_H
#define FLAMEBPF_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kallsyms;

/* Loads the text symbols (types t/T/w/W) of a kallsyms file. Returns 0,
 * -EPERM when every address reads as zero (kptr_restrict), or -errno. */
int kallsyms__load(const char *path, struct kallsyms **out);

/* The same for the n addresses of addrs (sorted, no repeats) alone: keeps
 * only the symbol that contains each, so that a system-wide profile's few
 * thousand kernel addresses do not hold all ~200k names. A lookup of any
 * other address may give a wrong name. */
int kallsyms__load_for(const char *path, const uint64_t *addrs, size_t n, struct kallsyms **out);

/* The symbol containing addr and addr's offset from it, or NULL.
 * Module symbols keep their name without the "[module]" suffix. */
const char *kallsyms__lookup(const struct kallsyms *k, uint64_t addr, uint64_t *off);

void kallsyms__free(struct kallsyms *k);

#endif
