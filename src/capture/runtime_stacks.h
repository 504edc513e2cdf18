/* What one sample's stack of a language runtime says about how well it was
 * named: whether its JIT frames have names, and whether the function it
 * ran is hidden behind the runtime's interpreter. Used by runtimes.c to
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

#endif
