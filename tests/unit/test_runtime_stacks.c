// SPDX-License-Identifier: GPL-2.0
/*
 * What a runtime's sample stack says of its naming (capture/runtime_stacks.c),
 * on stacks laid out as a JVM's and node's come out of the sampler: JIT
 * frames named by a perf map, V8's interpreter entry standing for the
 * function it runs, and a walk cut at JIT code (a JVM without
 * -XX:+PreserveFramePointer) or reaching the thread's start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "capture/runtime_stacks.h"

#define MAP "/tmp/perf-42.map"

/* Root first; a frame of module "k" is the kernel's. */
struct fr {
	const char *name, *module, *dso;
};

#define STACK(...) ((const struct fr[]){ __VA_ARGS__, { NULL, NULL, NULL } })

static const struct profile_stack *stack_of(struct profile *p, const struct fr *fs)
{
	uint32_t ids[32], n = 0;

	for (; fs[n].name; n++) {
		bool kernel = fs[n].module && !strcmp(fs[n].module, "k");
		struct frame f = { fs[n].name,
				   kernel ? "[kernel]" : fs[n].module,
				   kernel ? FRAME_KERNEL : FRAME_USER,
				   0x1000 + n,
				   0,
				   fs[n].dso,
				   "" };

		assert_int_equal(profile__findnew_frame_at(p, &f, &ids[n]), 0);
	}
	assert_int_equal(
		profile__add_stack(p, &(struct stack_owner){ 42, 42, "x", "x" }, ids, n, 1), 0);
	return profile__stack(p, profile__nr_stacks(p) - 1);
}

/* Whether fs is named, interpreted (as r's) and cut at JIT code. */
static void expect(enum runtime r, const struct fr *fs, bool named, bool interpreted, bool cut)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	const struct profile_stack *s;

	assert_non_null(p);
	s = stack_of(p, fs);
	assert_int_equal(runtime_stack__named(p, s), named);
	assert_int_equal(runtime_stack__interpreted(p, s, r), interpreted);
	assert_int_equal(runtime_stack__cut_at_jit(p, s), cut);
	profile__free(p);
}

#define LEAF_WORK                                                                                  \
	{                                                                                          \
		"long App.leafWork(long, long)", "perf-42.map", MAP                                \
	}
#define CLONE3                                                                                     \
	{                                                                                          \
		"clone3", "libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"                       \
	}
#define TRAMPOLINE                                                                                 \
	{                                                                                          \
		"Builtins_InterpreterEntryTrampoline", "node", "/usr/bin/node"                     \
	}

static void test_jvm(void **state)
{
	(void)state;
	/* without -XX:+PreserveFramePointer: the compiled method alone */
	expect(RUNTIME_JVM, STACK(LEAF_WORK, { "asm_sysvec_apic_timer_interrupt", "k", "" }), true,
	       false, true);
	/* with it: down to the thread's start, through an interpreted method */
	expect(RUNTIME_JVM,
	       STACK(CLONE3, { "JavaMain", "libjli.so", "/usr/lib/jvm/libjli.so" },
		     { "void App.main(java.lang.String[])", "[java]", "[java]" }, LEAF_WORK),
	       true, false, false);
	/* an interpreted method outermost: its callers lost as well */
	expect(RUNTIME_JVM, STACK({ "void App.main(java.lang.String[])", "[java]", "[java]" }),
	       true, false, true);
	/* a method the interpreter runs that could not be named */
	expect(RUNTIME_JVM, STACK(CLONE3, { "Interpreter", "perf-42.map", MAP }), true, true,
	       false);
	/* the interpreted main under a compiled callee counts for nothing */
	expect(RUNTIME_JVM, STACK(CLONE3, { "Interpreter", "perf-42.map", MAP }, LEAF_WORK), true,
	       false, false);
}

static void test_node(void **state)
{
	(void)state;
	/* without --interpreted-frames-native-stack: a bytecode handler
	 * under the interpreter's entry, once per interpreted function */
	expect(RUNTIME_NODE,
	       STACK({ "_start", "node", "/usr/bin/node" }, TRAMPOLINE, TRAMPOLINE,
		     { "Builtins_AddHandler", "node", "/usr/bin/node" }),
	       true, true, false);
	/* a frame gone on interpreted after a deoptimization */
	expect(RUNTIME_NODE,
	       STACK({ "_start", "node", "/usr/bin/node" },
		     { "Builtins_BaselineOrInterpreterEnterAtBytecode", "node", "/usr/bin/node" },
		     { "Builtins_AddHandler", "node", "/usr/bin/node" }),
	       true, true, false);
	/* with it: the function's own copy of the entry, named */
	expect(RUNTIME_NODE,
	       STACK({ "_start", "node", "/usr/bin/node" }, TRAMPOLINE,
		     { "JS:~leafWork /tmp/app.js:2:18", "perf-42.map", MAP },
		     { "Builtins_AddHandler", "node", "/usr/bin/node" }),
	       true, false, false);
	/* a compiled function under interpreted callers ran named */
	expect(RUNTIME_NODE,
	       STACK({ "_start", "node", "/usr/bin/node" }, TRAMPOLINE,
		     { "JS:*leafWork /tmp/app.js:2:18", "perf-42.map", MAP }),
	       true, false, false);
	/* JIT code without a name, outermost: neither named nor whole */
	expect(RUNTIME_NODE, STACK({ "[unknown]", "", "" }, TRAMPOLINE), false, true, true);
	/* the interpreter's name means nothing in another runtime */
	expect(RUNTIME_NONE, STACK({ "_start", "x", "/x" }, TRAMPOLINE), true, false, false);
}

static void test_cut_edges(void **state)
{
	(void)state;
	/* kernel frames alone: no user stack to be cut */
	expect(RUNTIME_JVM, STACK({ "do_syscall_64", "k", "" }), true, false, false);
	/* a --span's frame at the root is no code: the JIT frame under it is
	 * the outermost */
	expect(RUNTIME_JVM, STACK({ "[work 1]", "[span]", "" }, LEAF_WORK), true, false, true);
	/* an off-CPU state under the root, then the thread's start */
	expect(RUNTIME_JVM, STACK({ "[sleeping]", "", "" }, CLONE3, LEAF_WORK), true, false, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jvm),
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_cut_edges),
	};

	return cmocka_run_group_tests_name("runtime_stacks", tests, NULL, NULL);
}
