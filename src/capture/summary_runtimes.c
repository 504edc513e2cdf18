// SPDX-License-Identifier: GPL-2.0
/* What a capture tells about the language runtimes it sampled: how their
 * JIT frames were named, what share of their samples got names, and for
 * those left unnamed, why and what would name them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "util/msg.h"
#include "util/strbuf.h"
#include "summary.h"

/* How a runtime's processes were named: "perf map", "no perf map", ... */
static void add_how(struct strbuf *b, const struct runtimes *rt, enum runtime r)
{
	const struct runtime_count *c = &rt->r[r];

	if (c->with_jit)
		strbuf__addf(b, "JIT's own names read from memory%s, ",
			     c->with_jit == c->procs ? "" : " for some");
	if (c->with_methods)
		strbuf__addf(b, "interpreted methods named from memory%s, ",
			     c->with_methods == c->procs ? "" : " for some");
	if (!c->with_map)
		strbuf__addf(b, "no perf map");
	else if (c->with_map == c->procs)
		strbuf__addf(b, "perf map");
	else
		strbuf__addf(b, "perf map for %zu", c->with_map);
	if (r == RUNTIME_JVM && rt->jvm_made)
		strbuf__addf(b,
			     " (%zu asked of the JVM at the end with jcmd Compiler.perfmap, "
			     "%.1f s)",
			     rt->jvm_made, rt->jvm_secs);
}

static void add_runtime(struct strbuf *b, const struct runtimes *rt, enum runtime r,
			const char *what)
{
	const struct runtime_count *c = &rt->r[r];
	bool one = c->procs == 1;

	strbuf__addf(b, "%s%s %zu process%s, ", b->len ? "; " : "", runtime__name(r), c->procs,
		     one ? "" : "es");
	add_how(b, rt, r);
	strbuf__addf(b, ", %.0f%% of %s %s named", c->weight ? 100.0 * c->named / c->weight : 0.0,
		     one ? "its" : "their", what);
}

/* "123, 456, ..." */
static void add_pids(struct strbuf *b, const struct runtime_count *c)
{
	for (size_t i = 0; i < c->nunmapped; i++)
		strbuf__addf(b, "%s%d", i ? ", " : "", (int)c->unmapped[i]);
	if (c->procs - c->with_map - c->with_jit > c->nunmapped)
		strbuf__addf(b, ", ...");
}

/* Why jcmd gave no map, in words. */
static void add_jvm_failure(struct strbuf *b, const struct runtimes *rt)
{
	const struct jvm_ask *a = &rt->jvm_fail;

	if (rt->jvm_err == -ENOENT)
		strbuf__addf(b, "jcmd is not installed (Debian: openjdk-17-jdk-headless)");
	else if (rt->jvm_err == -ETIMEDOUT)
		strbuf__addf(b, "'%s %d Compiler.perfmap' took too long (%.1f s) and was killed",
			     a->jcmd, (int)rt->jvm_failed, a->secs);
	else if (rt->jvm_err == -EPERM)
		strbuf__addf(b, "cannot run jcmd as the JVM's user");
	else if (rt->jvm_err == -ENODATA)
		strbuf__addf(b, "'%s %d Compiler.perfmap' wrote no perf map we could read", a->jcmd,
			     (int)rt->jvm_failed);
	else if (rt->jvm_err == -ECHILD && WIFEXITED(a->status))
		strbuf__addf(b, "'%s %d Compiler.perfmap' failed (exit status %d%s%s)", a->jcmd,
			     (int)rt->jvm_failed, WEXITSTATUS(a->status), a->said[0] ? ": " : "",
			     a->said);
	else
		strbuf__addf(b, "cannot run '%s': %s", a->jcmd,
			     rt->jvm_err == -ECHILD ? "killed by a signal"
						    : strerror(-rt->jvm_err));
}

static void advise(const struct runtimes *rt, enum runtime r)
{
	const struct runtime_count *c = &rt->r[r];
	struct strbuf b = {}, why = {};

	if (c->with_map + c->with_jit == c->procs)
		return;
	add_pids(&b, c);
	if (r == RUNTIME_BEAM)
		p_err("beam.smp (pid %s): no perf map, and its JIT's names could not be read "
		      "from its memory, so its JIT frames (Erlang and Elixir "
		      "functions) are unnamed: start the node with +JPperf true (e.g. "
		      "ERL_FLAGS=\"+JPperf true\" in its environment)",
		      b.s);
	else if (r == RUNTIME_NODE)
		p_err("node (pid %s): no perf map, so its JavaScript frames are unnamed: start "
		      "it with --perf-basic-prof",
		      b.s);
	else if (r == RUNTIME_JVM && rt->jvm_unasked)
		p_err("java (pid %s): no perf map, so its JIT frames are unnamed: %zu JVMs were "
		      "not "
		      "asked for one, jcmd having taken the %d s allowed",
		      b.s, rt->jvm_unasked, JVM_PERFMAP_TIMEOUT_MS / 1000);
	else if (r == RUNTIME_JVM && rt->jvm_err) {
		add_jvm_failure(&why, rt);
		p_err("java (pid %s): no perf map, so its JIT frames are unnamed: %s", b.s, why.s);
	} else if (r == RUNTIME_JVM)
		p_err("java (pid %s): no perf map, so its JIT frames are unnamed: it could not be "
		      "asked for one (it exited first, or runs in a container); "
		      "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit writes one at its "
		      "exit",
		      b.s);
	strbuf__free(&why);
	strbuf__free(&b);
}

/* A share of samples in the interpreter below which saying so is noise
 * (node interprets its start-up even with the flag that names that). */
#define INTERPRETED_NOTED_PCT 5

/* Samples in functions the interpreter runs, which it does not name: what
 * would name them. */
static void advise_interpreted(const struct runtimes *rt, enum runtime r, const char *what)
{
	const struct runtime_count *c = &rt->r[r];
	double pct = c->weight ? 100.0 * c->interpreted / c->weight : 0;
	const char *its = c->procs == 1 ? "its" : "their";

	if (pct < INTERPRETED_NOTED_PCT)
		return;
	if (r == RUNTIME_NODE)
		p_err("node: %.0f%% of %s %s ran JavaScript functions in V8's interpreter, which "
		      "names them all InterpreterEntryTrampoline: start node with "
		      "--interpreted-frames-native-stack (beside --perf-basic-prof) to name them",
		      pct, its, what);
	else if (r == RUNTIME_JVM)
		p_err("java: %.0f%% of %s %s ran methods in HotSpot's interpreter, named "
		      "Interpreter, not as themselves (a method is named once the JIT compiles it)",
		      pct, its, what);
}

/* A share of samples whose walk stopped in JIT code below which saying so
 * is noise: with frame pointers kept, a walk still stops there when the
 * sample lands in a function's prologue or epilogue, or in a stub that
 * keeps none (0% measured of a JVM with -XX:+PreserveFramePointer and of
 * node, but a few % may be so in code that returns often), while a JVM
 * without that flag ends 90-100% of its samples so. */
#define CUT_NOTED_PCT 5

/* Samples whose walk stopped in JIT code, the callers lost: why, and for
 * a JVM the flag that keeps them. */
static void advise_cut(const struct runtimes *rt, enum runtime r, const char *what)
{
	const struct runtime_count *c = &rt->r[r];
	double pct = c->weight ? 100.0 * c->cut_at_jit / c->weight : 0;
	const char *its = c->procs == 1 ? "its" : "their";

	if (pct < CUT_NOTED_PCT)
		return;
	if (r == RUNTIME_JVM)
		p_err("java: %.0f%% of %s %s in stacks that end in JIT-compiled code, not at "
		      "their thread's start: compiled Java code keeps no frame pointer, so its "
		      "callers are lost; run the JVM with -XX:+PreserveFramePointer to keep them",
		      pct, its, what);
	else if (r == RUNTIME_NODE)
		p_err("node: %.0f%% of %s %s in stacks that end in JIT code, not at their "
		      "thread's start, so their callers are lost (V8 keeps frame pointers: code "
		      "that does not, or a stack deeper than flamebpf walks)",
		      pct, its, what);
}

void summary__runtimes(const struct runtimes *rt, const char *what)
{
	struct strbuf b = {};

	for (enum runtime r = RUNTIME_NONE + 1; r < RUNTIME_NR; r++)
		if (rt->r[r].procs)
			add_runtime(&b, rt, r, what);
	if (b.len)
		p_err("runtimes: %s", b.s);
	strbuf__free(&b);
	for (enum runtime r = RUNTIME_NONE + 1; r < RUNTIME_NR; r++)
		if (rt->r[r].procs) {
			advise(rt, r);
			advise_interpreted(rt, r, what);
			advise_cut(rt, r, what);
		}
}
