// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "runtime_stacks.h"

static bool has_prefix(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

/* JIT code without a name: outside every mapping, in anonymous memory, or
 * in the memfd a JIT maps twice. */
static bool unnamed_jit(const struct frame *f)
{
	return f->kind == FRAME_USER &&
	       (!strcmp(f->name, "[unknown]") || has_prefix(f->module, "[anon") ||
		has_prefix(f->dso, "/memfd:"));
}

bool runtime_stack__named(const struct profile *p, const struct profile_stack *s)
{
	for (uint32_t i = 0; i < s->nframes; i++)
		if (unnamed_jit(profile__frame(p, s->frames[i])))
			return false;
	return true;
}

/* A frame of V8 that stands for an interpreted JavaScript function without
 * naming it: the interpreter's entry (an embedded builtin's symbol,
 * Builtins_InterpreterEntryTrampoline[ForProfiling], or
 * Builtin:InterpreterEntryTrampoline in a perf map), and the builtins a
 * frame returns into when it goes on interpreted after a deoptimization
 * ([Baseline]InterpreterEnterAt[Next]Bytecode). node's
 * --interpreted-frames-native-stack gives each function a copy of the
 * entry of its own, named in the perf map (JS:~name). */
static bool v8_interpreter_frame(const struct frame *f)
{
	return strstr(f->name, "InterpreterEntryTrampoline") ||
	       strstr(f->name, "InterpreterEnterAt");
}

/* A frame of the interpreter that runs every function it interprets, so
 * names none of them: HotSpot's template interpreter, as its perf map
 * calls it, or V8's. */
static bool interpreter_frame(enum runtime r, const struct frame *f)
{
	if (r == RUNTIME_JVM)
		return !strcmp(f->name, "Interpreter");
	return r == RUNTIME_NODE && v8_interpreter_frame(f);
}

/* JIT code, named by a perf map (symbolize.c gives its frames the map as
 * their DSO) or not. */
static bool jit_frame(const struct frame *f)
{
	return has_prefix(f->dso, "/tmp/perf-") || unnamed_jit(f);
}

bool runtime_stack__interpreted(const struct profile *p, const struct profile_stack *s,
				enum runtime r)
{
	if (r != RUNTIME_JVM && r != RUNTIME_NODE)
		return false;
	for (uint32_t i = s->nframes; i-- > 0;) {
		const struct frame *f = profile__frame(p, s->frames[i]);

		if (interpreter_frame(r, f))
			return true;
		if (jit_frame(f))
			return false;
	}
	return false;
}

/* A frame flamebpf made up, no code: a --span's, an off-CPU state's. */
static bool made_up(const struct frame *f)
{
	return f->name[0] == '[' && strcmp(f->name, "[unknown]");
}

bool runtime_stack__cut_at_jit(const struct profile *p, const struct profile_stack *s)
{
	for (uint32_t i = 0; i < s->nframes; i++) {
		const struct frame *f = profile__frame(p, s->frames[i]);

		if (f->kind == FRAME_USER && !made_up(f))
			return jit_frame(f) || !strcmp(f->module, "[java]");
	}
	return false;
}
