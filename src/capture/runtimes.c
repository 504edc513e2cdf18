// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "util/hashmap.h"
#include "runtime_stacks.h"
#include "runtimes.h"

/* From its newest snapshot, else from the mappings it was seen to make
 * (a COMMAND that exec'd its way to the runtime may have none). */
static enum runtime runtime_of(struct procs *ps, pid_t pid, const char **jvm)
{
	enum runtime r = runtime__of(procs__latest(ps, pid), jvm);
	struct proc_maps hist;

	if (r != RUNTIME_NONE)
		return r;
	hist = procs__history(ps, pid);
	return runtime__of(&hist, jvm);
}

static void ask_jvm(struct runtimes *rt, struct procs *ps, pid_t pid, const char *libjvm)
{
	struct jvm_ask a;
	int err;

	int left = JVM_PERFMAP_TIMEOUT_MS - (int)(rt->jvm_secs * 1000);

	/* in a container its /tmp and its pid are not ours to give jcmd */
	if (procs__root(ps, pid) > 0 || kill(pid, 0))
		return;
	if (left <= 0) {
		rt->jvm_unasked++;
		return;
	}
	err = jvm_perfmap__ask(pid, libjvm, left, &a);
	rt->jvm_asked++;
	rt->jvm_secs += a.secs;
	procs__perfmap_changed(ps, pid);
	if (!err && !procs__perfmap(ps, pid))
		err = -ENODATA; /* it said yes but wrote nothing we could read */
	rt->jvm_made += !err;
	if (err && !rt->jvm_err) {
		rt->jvm_err = err;
		rt->jvm_failed = pid;
		rt->jvm_fail = a;
	}
}

void runtimes__ask_jvms(struct runtimes *rt, struct procs *ps)
{
	for (size_t i = 0; i < procs__size(ps); i++) {
		pid_t pid = procs__pid_at(ps, i);
		const char *libjvm;

		if (pid && runtime_of(ps, pid, &libjvm) == RUNTIME_JVM && !procs__perfmap(ps, pid))
			ask_jvm(rt, ps, pid, libjvm);
	}
}

static void count_proc(struct runtime_count *c, struct procs *ps, pid_t pid)
{
	c->procs++;
	if (procs__perfmap(ps, pid))
		c->with_map++;
	else if (procs__jit_map(ps, pid))
		c->with_jit++;
	else if (c->nunmapped < RUNTIMES_MAX_NOTED)
		c->unmapped[c->nunmapped++] = pid;
}

/* A frame of a method a JVM's interpreter ran, named from its memory
 * (the sampler names them so, module "[java]"), not the interpreter. */
static bool stack_has_method(const struct profile *p, const struct profile_stack *s)
{
	for (uint32_t i = 0; i < s->nframes; i++) {
		const struct frame *f = profile__frame(p, s->frames[i]);

		if (!strcmp(f->module, "[java]") && strcmp(f->name, "Interpreter") &&
		    strcmp(f->name, "StubRoutines (1)"))
			return true;
	}
	return false;
}

/* A sample in an interpreted function is not named: the interpreter's
 * frame names none of the functions it runs. */
static void count_stack(struct runtime_count *c, const struct profile *p,
			const struct profile_stack *s, enum runtime r)
{
	bool interpreted = runtime_stack__interpreted(p, s, r);

	c->weight += s->weight;
	if (runtime_stack__named(p, s) && !interpreted)
		c->named += s->weight;
	if (interpreted)
		c->interpreted += s->weight;
	if (runtime_stack__cut_at_jit(p, s))
		c->cut_at_jit += s->weight;
}

void runtimes__count(struct runtimes *rt, const struct profile *p, struct procs *ps)
{
	struct hashmap seen = {};    /* pid -> 1 + its runtime */
	struct hashmap methods = {}; /* pid -> 1: its interpreted methods named */
	const char *jvm;
	uint64_t one;

	for (size_t i = 0; i < profile__nr_stacks(p); i++) {
		const struct profile_stack *s = profile__stack(p, i);
		uint64_t r;

		if (!hashmap__get(&seen, s->who.pid, &r)) {
			r = 1 + runtime_of(ps, (pid_t)s->who.pid, &jvm);
			if (hashmap__set(&seen, s->who.pid, r))
				break; /* no memory: the counts so far */
			if (r - 1 != RUNTIME_NONE)
				count_proc(&rt->r[r - 1], ps, (pid_t)s->who.pid);
		}
		count_stack(&rt->r[r - 1], p, s, r - 1);
		if (r - 1 == RUNTIME_JVM && !hashmap__get(&methods, s->who.pid, &one) &&
		    stack_has_method(p, s) && !hashmap__set(&methods, s->who.pid, 1))
			rt->r[r - 1].with_methods++;
	}
	hashmap__free(&seen);
	hashmap__free(&methods);
}
