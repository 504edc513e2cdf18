/* What one sample's stack of a language runtime says about how well it was
 * named and walked: whether its JIT frames have names, whether the
 * function it ran is hidden behind the runtime's interpreter, and whether
 * the walk stopped in JIT code, its callers lost. Used by runtimes.c to
 * count a runtime's samples for the summary. */
#ifndef FLAMEBPF_RUNTIME_STACKS_H
#define FLAMEBPF_RUNTIME_STACKS_H

#include <stdbool.h>

#include "profile/profile.h"
#include "symbols/runtime.h"

/* None of the stack's user frames is JIT code without a name. */
bool runtime_stack__named(const struct profile *p, const struct profile_stack *s);

/* The stack's innermost frame that is JIT code or r's interpreter is the
 * interpreter, which names none of the functions it runs: HotSpot's
 * Interpreter, V8's InterpreterEntryTrampoline and the builtins that
 * re-enter an interpreted frame. Its interpreted callers count for
 * nothing (a JVM's main stays interpreted while what it calls is
 * compiled). */
bool runtime_stack__interpreted(const struct profile *p, const struct profile_stack *s,
				enum runtime r);

/* The stack's outermost user frame is JIT code (or an interpreted Java
 * method): the walk stopped there, short of the thread's start, so the
 * callers of that frame are lost. A stack deeper than the walk goes ends
 * so too. */
bool runtime_stack__cut_at_jit(const struct profile *p, const struct profile_stack *s);

#endif
