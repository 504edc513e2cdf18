/* Numbers as the outputs show them to people. */
#ifndef FLAMEBPF_NUMFMT_H
#define FLAMEBPF_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* "1,234,567". */
void numfmt__count(uint64_t v, char *buf, size_t size);

/* Three significant digits: "812 ns", "12.3 ms", "1.23 s". */
void numfmt__ns(uint64_t ns, char *buf, size_t size);

#endif
