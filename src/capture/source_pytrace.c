// SPDX-License-Identifier: GPL-2.0
/* -f 'py:REGEX': every call of the Python functions whose qualified name
 * matches, in the CPython 3.10-3.13 processes of -p or of the COMMAND, timed and
 * nested as -f times native functions. The probes sit in the evaluation
 * loop (py_sites.h; 3.10: on its calls), the names are matched in the kernel (regex_dfa.h), and
 * each matching code object is named from the process's memory while the
 * process runs. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/binaries.h"
#include "symbols/elf_object.h"
#include "symbols/proc_mem.h"
#include "symbols/py_code.h"
#include "symbols/py_debug_offsets.h"
#include "symbols/py_layout.h"
#include "util/array.h"
#include "util/msg.h"
#include "util/regex_dfa.h"
#include "privileges.h"
#include "py_sites.h"
#include "disasm.h"
#include "ret_sites.h"
#include "source.h"
#include "summary.h"
#include "tracer.h"

#define PY_PREFIX "py:"

struct py_source {
	struct tracer *t; /* first: see source_tracer__* */
	const struct source_opts *o;
	int verbosity;
	const struct py_layout *layout; /* &layout_buf */
	struct py_layout layout_buf;
	struct py_target *targets;
	size_t ntargets;
	struct py_dfa *dfa;
	struct trace_func *names; /* by function id; NULL name: not read (yet) */
	size_t nnames, names_cap;
	size_t unread; /* matching code objects whose name could not be read */
	struct trace_attach_stats at;
	struct py_trace_layout lay; /* what the probes read, for the tracer */
	char *regex;
};

bool source_pytrace__wanted(const struct source_opts *o)
{
	for (size_t i = 0; i < o->nfuncs; i++)
		if (!strncmp(o->funcs[i], PY_PREFIX, strlen(PY_PREFIX)))
			return true;
	return false;
}

/* The -f py: regexes as one: "(A)|(B)". */
static int join_regexes(struct py_source *s)
{
	size_t len = 1;
	char *r;

	for (size_t i = 0; i < s->o->nfuncs; i++) {
		if (strncmp(s->o->funcs[i], PY_PREFIX, strlen(PY_PREFIX))) {
			p_err("-f '%s': Python functions (-f py:) cannot be traced with native "
			      "ones "
			      "in one capture",
			      s->o->funcs[i]);
			return -EINVAL;
		}
		len += strlen(s->o->funcs[i]) + 3;
	}
	r = s->regex = calloc(1, len);
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < s->o->nfuncs; i++)
		r += sprintf(r, s->o->nfuncs == 1 ? "%s%s" : "%s(%s)", i ? "|" : "",
			     s->o->funcs[i] + strlen(PY_PREFIX));
	return 0;
}

static int compile_regex(struct py_source *s)
{
	struct dfa *d = calloc(1, sizeof(*d));
	char why[160];
	int err;

	s->dfa = calloc(1, sizeof(*s->dfa));
	if (!d || !s->dfa) {
		free(d);
		return -ENOMEM;
	}
	err = dfa__compile(s->regex, d, why, sizeof(why));
	if (err == -E2BIG)
		snprintf(why, sizeof(why), "too complex to match in the kernel (over %d states)",
			 DFA_MAX_STATES);
	if (err) {
		p_err("-f 'py:%s': %s", s->regex, why);
		free(d);
		return -EINVAL;
	}
	s->dfa->nstates = d->nstates;
	s->dfa->nclasses = d->nclasses;
	memcpy(s->dfa->cls, d->cls, sizeof(s->dfa->cls));
	memcpy(s->dfa->next, d->next, sizeof(s->dfa->next));
	memcpy(s->dfa->accept, d->accept, sizeof(s->dfa->accept));
	free(d);
	return 0;
}

/* The CPython of one target: its binary with the evaluation loop. */
struct py_target {
	pid_t pid; /* 0: the COMMAND's, attached for all its processes */
	char *path;
	unsigned int major, minor;
};

/* Attaches the probes in t's binary, open on fd. */
static int attach_binary(struct py_source *s, struct disasm *d, const struct py_target *t, int fd)
{
	struct py_sites ps = {};
	char why[160];
	int err = py_sites__find(d, fd, t->major, t->minor, s->layout->walk.frame_instr, &ps, why,
				 sizeof(why));

	if (err) {
		p_err("-f py: cannot place the probes in '%s': %s", t->path, why);
		return err == -ENOMEM ? err : -EINVAL;
	}
	err = tracer__attach_python(s->t, s->dfa, t->path, &ps, t->pid);
	if (err)
		p_err("-f py: cannot attach the probes in '%s': %s", t->path, strerror(-err));
	else
		s->at.binaries++;
	return err;
}

/* The binary of bins that runs Python (python3.N or libpython3.N with the
 * evaluation loop), into t; -ENOENT when none does. */
static int find_python(const struct binaries *bins, struct py_target *t)
{
	static const char *const names[] = { "_PyEval_EvalFrameDefault" };

	for (size_t i = 0; i < bins->n; i++) {
		const struct target_binary *b = &bins->v[i];
		uint64_t vaddr = 0;
		int fd, err;

		if (!py_layout__version_of_file(b->path, &t->major, &t->minor))
			continue;
		fd = open(b->open_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		err = elf_object__find(fd, names, 1, &vaddr);
		close(fd);
		if (!err) {
			t->path = strdup(b->open_path);
			return t->path ? 0 : -ENOMEM;
		}
	}
	return -ENOENT;
}

/* A COMMAND that is not CPython; a script (a pyenv or asdf shim is one)
 * decides at run time which interpreter it execs, so that one is named. */
static void say_not_python(const char *command)
{
	char *runner = NULL;

	if (!binaries__script_runner(command, &runner) && runner)
		p_err("-f py: '%s' is a script run by %s, not CPython: name the interpreter it "
		      "runs (a pyenv shim's: `pyenv which python3`), e.g. -- /usr/bin/python3 "
		      "prog.py",
		      command, runner);
	else
		p_err("-f py: '%s' is not CPython (no python3.N or libpython3.N with its "
		      "evaluation loop)",
		      command);
	free(runner);
}

static int find_target(const struct source_opts *o, size_t i, pid_t cmd_pid, struct py_target *t)
{
	struct binaries bins = {};
	int err;

	t->pid = i < o->npids ? o->pids[i] : cmd_pid;
	err = i < o->npids ? binaries__of_pid(t->pid, &bins)
			   : binaries__of_command(o->command[0], &bins);
	if (!err)
		err = find_python(&bins, t);
	binaries__free(&bins);
	if (err == -ENOENT && i < o->npids)
		p_err("-f py: pid %d runs no CPython (no python3.N or libpython3.N with its "
		      "evaluation loop)",
		      (int)t->pid);
	else if (err == -ENOENT)
		say_not_python(o->command[0]);
	return err == -ENOENT ? -EINVAL : err;
}

/* The layout of t's CPython: 3.13's from the _Py_DebugOffsets its file
 * starts _PyRuntime with (a COMMAND runs only after the probes are in, and
 * those offsets are constants of the build), the table's before. */
static int find_layout(struct py_source *s, const struct py_target *t)
{
	const struct py_layout *l = py_layout__find(t->major, t->minor);
	int fd, err = -EPROTONOSUPPORT;

	if (t->major == 3 && t->minor >= 10 && t->minor <= 12 && l) {
		s->layout_buf = *l;
		err = 0;
	} else if (t->major == 3 && t->minor == 13) {
		fd = open(t->path, O_RDONLY | O_CLOEXEC);
		err = fd < 0 ? -errno : py_debug_offsets__of_file(fd, &s->layout_buf);
		if (fd >= 0)
			close(fd);
		if (err == -ENOENT)
			err = -EPROTONOSUPPORT;
	}
	if (err == -EPROTONOSUPPORT)
		p_err("-f py: '%s' is CPython %u.%u: Python function tracing knows 3.10 to 3.13",
		      t->path, t->major, t->minor);
	else if (err)
		p_err("-f py: cannot read '%s': %s", t->path, strerror(-err));
	s->layout = &s->layout_buf;
	return err == -EPROTONOSUPPORT ? -EINVAL : err;
}

/* Every target's CPython, all one version (one layout per capture). */
static int find_targets(struct py_source *s, pid_t cmd_pid)
{
	size_t n = s->o->npids + (s->o->command != NULL);
	struct py_target *t;
	int err = 0;

	s->targets = calloc(n, sizeof(*s->targets));
	if (!s->targets)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		t = &s->targets[s->ntargets];
		err = find_target(s->o, i, cmd_pid, t);
		if (err)
			break;
		s->ntargets++;
		if (t->major != s->targets[0].major || t->minor != s->targets[0].minor) {
			p_err("-f py: '%s' is CPython %u.%u, '%s' %u.%u: one capture traces one "
			      "version",
			      s->targets[0].path, s->targets[0].major, s->targets[0].minor, t->path,
			      t->major, t->minor);
			err = -EINVAL;
		}
	}
	return err ? err : find_layout(s, &s->targets[0]);
}

static int attach_all(struct py_source *s)
{
	struct disasm *d = NULL;
	int err = disasm__new(&d);

	for (size_t i = 0; !err && i < s->ntargets; i++) {
		int fd = open(s->targets[i].path, O_RDONLY | O_CLOEXEC);

		err = fd < 0 ? -errno : attach_binary(s, d, &s->targets[i], fd);
		if (fd < 0)
			p_err("-f py: cannot open '%s': %s", s->targets[i].path, strerror(-err));
		else
			close(fd);
	}
	disasm__free(d);
	return err;
}

/* The code object's name and file as the kernel sent them, or read now
 * from the process (a name not in ASCII, a long file name). */
static int code_names(struct py_source *s, const struct py_code_event *ev, struct py_code *c)
{
	struct proc_mem m = { proc_mem__read, (void *)(intptr_t)ev->pid };
	int err;

	if (ev->name_len >= 0 && ev->file_len >= 0) {
		c->name = strndup(ev->name, ev->name_len);
		c->file = strndup(ev->file, ev->file_len);
		c->firstlineno = ev->firstlineno;
		return c->name && c->file ? 0 : -ENOMEM;
	}
	err = py_code__read(&m, s->layout, NULL, ev->code, c);
	return err == -ENOMEM ? err : err ? -EFAULT : 0;
}

/* Names function id ev->id after its code object: "NAME (FILE:LINE)", the
 * line its definition's. */
static int name_code(struct py_source *s, const struct py_code_event *ev)
{
	struct trace_func *f, none = {};
	struct py_code c = {};
	char *name = NULL;
	int err;

	while (s->nnames <= ev->id)
		if ((err = array__push((void **)&s->names, &s->nnames, &s->names_cap, &none,
				       sizeof(none))))
			return err;
	f = &s->names[ev->id];
	err = code_names(s, ev, &c);
	if (!err && asprintf(&name, "%s (%s:%d)", c.name, c.file, c.firstlineno) < 0)
		err = -ENOMEM;
	if (err) {
		s->unread += err == -EFAULT;
		py_code__free(&c);
		return err == -EFAULT ? 0 : err;
	}
	f->name = name;
	f->path = c.file;
	f->module = strrchr(c.file, '/') ? strrchr(c.file, '/') + 1 : c.file;
	c.file = NULL;
	py_code__free(&c);
	return 0;
}

static int add_pid(void *impl, pid_t pid, bool before_exec)
{
	struct py_source *s = impl;
	int err = tracer__add_pid(s->t, pid, 0, before_exec);

	if (err)
		p_err("cannot set the process filter: %s", strerror(-err));
	return err;
}

static int poll_events(void *impl, int timeout_ms)
{
	struct py_source *s = impl;
	const struct py_code_event *ev;
	int err = tracer__poll(s->t, timeout_ms);
	size_t n = err ? 0 : tracer__py_codes(s->t, &ev);

	for (size_t i = 0; i < n && !err; i++)
		err = name_code(s, &ev[i]);
	return err;
}

static void stop(void *impl)
{
	struct py_source *s = impl;

	tracer__stop(s->t);
	poll_events(s, 0);
}

static int collect(void *impl, struct profile *p)
{
	static const char unnamed[] = "[Python function not read]";
	struct py_source *s = impl;

	for (size_t i = 0; i < s->nnames; i++)
		if (!s->names[i].name) {
			s->names[i].name = unnamed;
			s->names[i].module = s->names[i].path = "";
		}
	return tracer__collect(s->t, s->names, s->nnames, p);
}

static void summary(void *impl, const struct profile *p, double secs)
{
	struct py_source *s = impl;
	struct tracer_stats st;

	tracer__stats(s->t, &st);
	s->at.attached = st.counter[TCNT_PY_MATCHED];
	summary__trace(p, &st, &s->at, secs, s->verbosity > 0);
	p_err("py: %" PRIu64 " Python functions matched '%s' among %" PRIu64
	      " code objects run; %" PRIu64 " calls an exception left ended at the next event",
	      st.counter[TCNT_PY_MATCHED], s->regex, st.counter[TCNT_PY_CODES],
	      st.counter[TCNT_PY_UNWOUND]);
	if (st.counter[TCNT_PY_UNREAD])
		p_err("py: %" PRIu64 " code objects not matched: their names are not ASCII or "
		      "longer than %d bytes",
		      st.counter[TCNT_PY_UNREAD], PY_NAME_MAX);
	if (st.counter[TCNT_PY_NAMES_LOST] || s->unread)
		p_err("py: %" PRIu64 " matching functions left unnamed ('[Python function not "
		      "read]'): %" PRIu64
		      " lost (a full ring buffer, or no id left), %zu unreadable",
		      st.counter[TCNT_PY_NAMES_LOST] + s->unread, st.counter[TCNT_PY_NAMES_LOST],
		      s->unread);
}

static void source_free(void *impl)
{
	struct py_source *s = impl;

	if (!s)
		return;
	tracer__free(s->t);
	for (size_t i = 0; i < s->nnames; i++)
		if (s->names[i].path && *s->names[i].path) {
			free((char *)s->names[i].name);
			free((char *)s->names[i].path);
		}
	free(s->names);
	for (size_t i = 0; i < s->ntargets; i++)
		free(s->targets[i].path);
	free(s->targets);
	free(s->dfa);
	free(s->regex);
	free(s);
}

static const struct source_ops py_ops = {
	.what = "calls",
	.add_pid = add_pid,
	.start = source_tracer__start,
	.poll = poll_events,
	.progress = source_tracer__progress,
	.stop = stop,
	.collect = collect,
	.summary = summary,
	.describe = source_tracer__describe,
	.free = source_free,
};

static int check_opts(const struct source_opts *o)
{
	if (!o->npids && !o->command) {
		p_err("-f py: needs the Python processes: -p PID or a COMMAND");
		return -EINVAL;
	}
	if (o->full_stack) {
		p_err("-f py: --full-stack is not supported: the calls are Python's");
		return -EINVAL;
	}
	return 0;
}

/* PyCodeObject._co_instrumentation_version (Include/cpython/code.h; not
 * among 3.13's _Py_DebugOffsets), 0 before 3.12. */
static uint32_t co_version_offset(unsigned int minor)
{
	return minor == 12 ? 160 : minor == 13 ? 168 : 0;
}

static int open_tracer(struct py_source *s)
{
	const struct py_layout *l = s->layout;
	struct tracer_opts to = {
		.filter_pids = true,
		.follow_children = s->o->command != NULL,
		.want_calls = s->o->timeline,
		.max_calls = s->o->max_calls,
		.cpu_split = s->o->cpu_split,
		.state_root = s->o->state_root,
		.duration = s->o->duration,
		.python = &s->lay,
		.python_eval_calls = l->major == 3 && l->minor == 10,
	};
	char missing[64];
	int err;

	s->lay = (struct py_trace_layout){
		.frame_code = l->walk.frame_code,
		.frame_previous = l->walk.frame_previous,
		.co_qualname = l->co_qualname ? l->co_qualname : l->co_name, /* none in 3.10 */
		.co_filename = l->co_filename,
		.co_firstlineno = l->co_firstlineno,
		.str_length = l->str_length,
		.str_state = l->str_state,
		.str_ascii_data = l->str_ascii_data,
		.co_version = co_version_offset(l->minor),
	};

	if (privileges__missing(missing, sizeof(missing))) {
		p_err("tracing needs root, or CAP_BPF and CAP_PERFMON (missing %s)", missing);
		return -EPERM;
	}
	err = tracer__open(&s->t, &to);
	if (err)
		p_err("cannot load the BPF tracer: %s%s", strerror(-err),
		      source__bpf_hint(err, s->verbosity));
	return err;
}

int source_pytrace__open(struct source *src, const struct source_opts *o, pid_t cmd_pid,
			 int verbosity)
{
	struct py_source *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->o = o;
	s->verbosity = verbosity;
	err = check_opts(o);
	if (!err)
		err = join_regexes(s);
	if (!err)
		err = compile_regex(s);
	if (!err)
		err = find_targets(s, cmd_pid);
	if (!err)
		err = open_tracer(s);
	if (!err)
		err = source_tracer__add_targets(s, o, cmd_pid, add_pid);
	if (!err)
		err = attach_all(s);
	if (err) {
		source_free(s);
		return err;
	}
	*src = (struct source){ &py_ops, s, UNIT_NANOSECONDS };
	return 0;
}
