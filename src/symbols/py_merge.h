/* One stack from a native stack and the Python frames of the same moment:
 * each frame of the evaluation loop (_PyEval_EvalFrameDefault) gives way
 * to the Python frames it was running. */
#ifndef FLAMEBPF_PY_MERGE_H
#define FLAMEBPF_PY_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* native: nn frames root first, is_eval[i] where native[i] is the
 * evaluation loop; py: np Python frames root first, entry[i] where one C
 * call of the loop began with py[i] (since 3.11 one call runs a frame and
 * every Python frame it calls, up to the next entry). The i-th call from
 * the root runs the i-th run of frames from an entry frame; a stack whose
 * calls outnumber its runs (a call that has yet to link its frame) keeps
 * the extra leaf calls as they are; one whose runs outnumber its calls (a
 * native stack cut short at the root) matches them from the leaf, the
 * extra runs going to the root-most call; one without calls has its Python
 * frames at the root. Writes the merged frames, root first, into out
 * (cap of them). Returns how many, or -ENOSPC. */
int py_merge(const uint32_t *native, const bool *is_eval, size_t nn, const uint32_t *py,
	     const bool *entry, size_t np, uint32_t *out, size_t cap);

#endif
