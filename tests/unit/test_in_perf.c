// SPDX-License-Identifier: GPL-2.0
/* Unit tests of src/formats/in_perf.c: `perf script` text as perf versions print it,
 * folded the way stackcollapse-perf.pl --kernel (--pid, --tid) folds it.
 * The expected files of tests/data were derived by hand from that script's
 * rules (see the comment at the top of src/formats/in_perf.c). */
#include "test_in.h"

static const struct reader_opts pids = { .keep_ids = true, .ids_in_root = true };
static const struct reader_opts timeline = { .keep_ids = true, .keep_events = true };
static const struct reader_opts period = { .period = true };
static const struct reader_opts pids_period = { .keep_ids = true,
						.ids_in_root = true,
						.period = true };

static void test_data_files(void **state)
{
	(void)state;
	expect_data("perf-modern.perf", NULL, ROOT_COMM, "perf-modern.folded");
	expect_data("perf-old.perf", NULL, ROOT_COMM, "perf-old.folded");
	expect_data("perf-old.perf", &pids, ROOT_PID, "perf-old-pids.folded");
	expect_data("perf-old.perf", &pids, ROOT_TID, "perf-old-tids.folded");
	expect_data("perf-sched.perf", NULL, ROOT_COMM, "perf-sched.folded");
	expect_data("perf-nocallchain.perf", NULL, ROOT_COMM, "perf-nocallchain.folded");
	expect_data("perf-real-cpuclock.perf", NULL, ROOT_COMM, "perf-real-cpuclock.folded");
	expect_data("perf-real-sched.perf", NULL, ROOT_COMM, "perf-real-sched.folded");
	expect_data("perf-real-faults.perf", NULL, ROOT_COMM, "perf-real-faults.folded");
	/* perf script's default fields, TID only: COMM-? under --pids */
	expect_data("perf-real-cpuclock.perf", &pids, ROOT_PID, "perf-real-cpuclock-pids.folded");
	expect_data("perf-old-unindented.perf", NULL, ROOT_COMM, "perf-old-unindented.folded");
	expect_data("perf-old-unindented.perf", &pids, ROOT_PID, "perf-old-unindented-pids.folded");
	expect_data("perf-old-unindented.perf", &pids, ROOT_TID, "perf-old-unindented-tids.folded");
}

/* --period: records weigh their period, as stackcollapse-perf.pl weighs them;
 * where every period is 1, or there is none, nothing changes. */
static void test_data_files_period(void **state)
{
	(void)state;
	expect_data("perf-modern.perf", &period, ROOT_COMM, "perf-modern-period.folded");
	expect_data("perf-nocallchain.perf", &period, ROOT_COMM, "perf-nocallchain-period.folded");
	expect_data("perf-real-cpuclock.perf", &period, ROOT_COMM,
		    "perf-real-cpuclock-period.folded");
	expect_data("perf-old.perf", &period, ROOT_COMM, "perf-old.folded");
	expect_data("perf-old.perf", &pids_period, ROOT_PID, "perf-old-pids.folded");
	expect_data("perf-sched.perf", &period, ROOT_COMM, "perf-sched.folded");
	expect_data("perf-real-sched.perf", &period, ROOT_COMM, "perf-real-sched.folded");
	expect_data("perf-real-faults.perf", &period, ROOT_COMM, "perf-real-faults-period.folded");
}

/* One record with HEADER and one frame, its stack's owner and event; it
 * weighs 1, a sample, and WEIGHT with --period. */
static void expect_header(const char *header, const char *comm, uint32_t pid, uint32_t tid,
			  uint32_t cpu, uint64_t ts, uint64_t weight)
{
	struct reader_opts o = timeline;
	char text[512];
	const struct profile_stack *s;
	const struct profile_event *e;
	struct loaded l;

	snprintf(text, sizeof(text), "%s\n\t  4005d6 main+0x16 (/usr/bin/app)\n\n", header);
	load(&l, text, &timeline);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__nr_stacks(l.p), 1);
	assert_int_equal(profile__stack(l.p, 0)->count, 1);
	assert_int_equal(profile__stack(l.p, 0)->weight, 1);
	loaded_free(&l);
	o.period = true;
	load(&l, text, &o);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.format, IN_PERF);
	assert_int_equal(profile__nr_stacks(l.p), 1);
	s = profile__stack(l.p, 0);
	assert_int_equal(s->count, 1);
	assert_string_equal(s->who.comm, comm);
	assert_int_equal(s->who.pid, pid);
	assert_int_equal(s->who.tid, tid);
	assert_int_equal(s->weight, weight);
	assert_int_equal(profile__nr_events(l.p), 1);
	e = profile__event(l.p, 0);
	assert_int_equal(e->cpu, cpu);
	assert_int_equal(e->ts, ts);
	loaded_free(&l);
}

static void test_headers(void **state)
{
	(void)state;
	/* perf 6: TID only, period, event with modifiers */
	expect_header("sh 25778  9567.973135:    1001001 cpu-clock:pppH: ", "sh",
		      PROFILE_PID_UNKNOWN, 25778, 0, 9567973135000ULL, 1001001);
	/* -a: the CPU; -F pid,tid: both ids */
	expect_header("thr 25865/25866 [003]  9581.068667:    1001001 cpu-clock:pppH: ", "thr",
		      25865, 25866, 3, 9581068667000ULL, 1001001);
	/* perf 4: no period, the event padded */
	expect_header("java 12688 [002] 6544038.708352:       cycles: ", "java",
		      PROFILE_PID_UNKNOWN, 12688, 2, 6544038708352000ULL, 1);
	/* --ns */
	expect_header("a.out 35081 252436.005167123:     667783 cycles:", "a.out",
		      PROFILE_PID_UNKNOWN, 35081, 0, 252436005167123ULL, 667783);
	/* a COMM with spaces that ends in a number */
	expect_header("V8 Worker 1 25865/25867 [000]  9581.072669:    1001001 cpu-clock:pppH: ",
		      "V8_Worker_1", 25865, 25867, 0, 9581072669000ULL, 1001001);
	/* a tracepoint's text after the event */
	expect_header("sleep  5001/5001  [001] 9600.123456789:          1 sched:sched_switch: "
		      "prev_comm=sleep prev_pid=5001 ==> next_comm=swapper/1 next_pid=0",
		      "sleep", 5001, 5001, 1, 9600123456789ULL, 1);
	/* a period of 0 counts 1 with --period, as in stackcollapse-perf.pl */
	expect_header("x 7 1.000001: 0 cycles:", "x", PROFILE_PID_UNKNOWN, 7, 0, 1000001000ULL, 1);
	/* digits in the COMM, a slash, a colon */
	expect_header("kworker/1:2-eve   812/812   [001] 9600.2:          1 cycles:",
		      "kworker/1:2-eve", 812, 812, 1, 9600200000000ULL, 1);
}

static void test_thread_comm_kept(void **state)
{
	struct loaded l;

	(void)state;
	load(&l, "V8 Worker 1 5/6 1.5: 10 cycles:\n\t 1 f (/x)\n\n", &timeline);
	assert_int_equal(l.ret, 0);
	assert_string_equal(profile__stack(l.p, 0)->who.tcomm, "V8 Worker 1");
	loaded_free(&l);
}

/* How frame lines are named, one frame a record. */
static void expect_frame(const char *comm, const char *line, const char *folded)
{
	char text[512], want[512];

	snprintf(text, sizeof(text), "%s 42/43 [000] 100.000001: cycles:\n%s\n\n", comm, line);
	snprintf(want, sizeof(want), "%s 1\n", folded);
	expect_folded(text, NULL, ROOT_COMM, want);
}

static void test_frame_names(void **state)
{
	(void)state;
	expect_frame("a", "\tffffffff81000130 entry_SYSCALL_64+0x76 ([kernel.kallsyms])",
		     "a;entry_SYSCALL_64_[k]");
	expect_frame("a", "\t 8c3453 tcp_sendmsg (/lib/modules/4.3.0/build/vmlinux)",
		     "a;tcp_sendmsg_[k]");
	expect_frame("a", "\t 7d8 ipv4_conntrack_local+0x7f8f80b8 ([nf_conntrack_ipv4])",
		     "a;ipv4_conntrack_local_[k]");
	expect_frame("a", "\t ffffffffc0a1b2c3 nft_do_chain+0x1a ([nf_tables])",
		     "a;nft_do_chain_[k]");
	expect_frame("a", "\tffffffff81000130 do_idle+0x10 ([kernel.vmlinux])", "a;do_idle_[k]");
	/* the pages the kernel maps into a process run user code: unlike
	 * stackcollapse-perf.pl, no _[k] (flamebpf names vdso frames as user's) */
	expect_frame("a", "\t 7ffd6c1f0a2d __vdso_clock_gettime+0x4d ([vdso])",
		     "a;__vdso_clock_gettime");
	expect_frame("a", "\t 7ffd6c1f0a2d [unknown] ([vdso])", "a;[[vdso]]");
	expect_frame("a", "\t 7ffd6c1f0a2d [vdso]+0xa2d ([vdso])", "a;[vdso]"); /* flamebpf's */
	expect_frame("a", "\t ffffffffff600000 [unknown] ([vsyscall])", "a;[[vsyscall]]");
	expect_frame("a", "\t 7fffffffe000 [unknown] ([uprobes])", "a;[[uprobes]]");
	expect_frame("a", "\t 7f00 [unknown] (/usr/lib/libc.so.6)", "a;[libc.so.6]");
	/* an empty DSO, which flamebpf's perf output prints as [unknown] */
	expect_frame("a", "\t 7f00 [unknown] ([unknown])", "a;[unknown]");
	expect_frame("a", "\t    7f00 [unknown] ([unknown])", "a;[unknown]");
	expect_frame("a", "\tffffffffc0a1b2c3 [unknown] ([kernel.kallsyms])",
		     "a;[[kernel.kallsyms]]_[k]");
	expect_frame("a", "\t 7f00 [unknown] (/tmp/perf-123.map)", "a;[perf-123.map]");
	/* one offset dropped: flamebpf's names without a symbol survive */
	expect_frame("a", "\t 7f1a2b libfoo.so+0x1a2b+0x0 (/usr/lib/libfoo.so)",
		     "a;libfoo.so+0x1a2b");
	expect_frame("a", "\t 7f1a2b f+0xABC (/x)", "a;f+0xABC");
	expect_frame("a", "\t 7f00 std::map<int, int>::find(int const&) const+0x10 (/x)",
		     "a;std::map<int, int>::find");
	expect_frame("a", "\t 7f00 net/http.(*Client).Do+0x60 (/x)", "a;net/http.(*Client).Do");
	expect_frame("a", "\t 7f00 x::(anonymous namespace)::y(int)+0x1 (/x)",
		     "a;x::(anonymous namespace)::y");
	/* a name that starts with '(' is left out, as stackcollapse-perf.pl does */
	expect_frame("a", "\t 7f00 (anonymous namespace)::y(int)+0x1 (/x)", "a");
	expect_frame("a", "\t 7f00 RegExp:[&<>\"'] (/tmp/perf-7539.map)", "a;RegExp:[&<>]");
	expect_frame("a", "\t 7f00 LCom/x/Y;::run (/tmp/perf-1.map)", "a;LCom/x/Y:::run");
	expect_frame("java", "\t 7f00 LCom/x/Y;::run (/tmp/perf-1.map)", "java;Com/x/Y:::run");
	expect_frame("java", "\t 7f00 Interpreter (/tmp/perf-1.map)", "java;Interpreter");
	expect_frame("java", "\t 7f00 Lfoo (/tmp/perf-1.map)", "java;Lfoo");
	/* inline chains: the callee parts are marked */
	expect_frame("a", "\t 7f00 outer(int)->middle->inner+0x8 (/x)",
		     "a;outer;middle_[i];inner_[i]");
	expect_frame("a", "\t 7f00 f->g ([kernel.kallsyms])", "a;f_[k];g_[i]");
	/* no DSO printed (-F ip,sym), a DSO path with spaces */
	expect_frame("a", "\t 7f00 main", "a;main");
	expect_frame("a", "\t 7f00 main+0x3 (/home/me/my app/a.out)", "a;main");
	expect_frame("a", "\t 7f00 (/usr/bin/dash)", "a;[dash]");
	/* a binary replaced since it was mapped, a DSO in parentheses */
	expect_frame("a", "\t c584f [unknown] (/memfd:sealed-9117 (deleted))",
		     "a;[memfd:sealed-9117]");
	expect_frame("a", "\t c584f f(int) (/opt/x (y)/lib.so)", "a;f");
	expect_frame("a", "\t c584f [unknown] (/opt/x (y)/lib.so)", "a;[lib.so]");
}

/* The kind and module of frames in the kernel and in the pages it maps. */
static void test_frame_kinds(void **state)
{
	static const struct {
		const char *line, *module;
		enum frame_kind kind;
	} cases[] = {
		{ "\t 7ffd6c1f0a2d __vdso_clock_gettime+0x4d ([vdso])", "[vdso]", FRAME_USER },
		{ "\t ffffffffff600000 [unknown] ([vsyscall])", "[vsyscall]", FRAME_USER },
		{ "\t 7fffffffe000 [unknown] ([uprobes])", "[uprobes]", FRAME_USER },
		{ "\t    7f00 [unknown] ([unknown])", "", FRAME_USER },
		{ "\tffffffff81000130 do_idle+0x10 ([kernel.kallsyms])", "[kernel]", FRAME_KERNEL },
		{ "\t ffffffffc0a1b2c3 nft_do_chain+0x1a ([nf_tables])", "[kernel]", FRAME_KERNEL },
		{ "\t 8c3453 tcp_sendmsg (/lib/modules/4.3.0/build/vmlinux)", "[kernel]",
		  FRAME_KERNEL },
	};
	char text[256];
	const struct frame *f;
	struct loaded l;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "a 1 1.0: cycles:\n%s\n\n", cases[i].line);
		load(&l, text, NULL);
		assert_int_equal(l.ret, 0);
		f = profile__frame(l.p, profile__stack(l.p, 0)->frames[0]);
		assert_string_equal(f->module, cases[i].module);
		assert_int_equal(f->kind, cases[i].kind);
		loaded_free(&l);
	}
}

/* The same line names frames once, but Java names depend on the root. */
static void test_same_line_other_root(void **state)
{
	(void)state;
	expect_folded("java 1 1.0: cycles:\n\t 1 LCom/x/Y;::run (/tmp/perf-1.map)\n\n"
		      "jit 2 1.1: cycles:\n\t 1 LCom/x/Y;::run (/tmp/perf-1.map)\n\n"
		      "java 1 1.2: cycles:\n\t 2 LCom/x/Y;::run (/tmp/perf-1.map)\n\n"
		      "jit 2 1.3: cycles:\n\t 2 LCom/x/Y;::run (/tmp/perf-1.map)\n\n",
		      NULL, ROOT_COMM, "java;Com/x/Y:::run 2\njit;LCom/x/Y:::run 2\n");
}

/* Frames differ by their address only where the output shows it. */
static void test_addresses(void **state)
{
	static const char text[] = "a 1 1.0: cycles:\n\t 401000 main+0x10 (/usr/bin/a)\n\n"
				   "a 1 1.1: cycles:\n\t 401008 main+0x18 (/usr/bin/a)\n\n";
	struct reader_opts o = { .keep_addrs = true };
	const struct frame *f;
	struct loaded l;

	(void)state;
	load(&l, text, NULL);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__nr_stacks(l.p), 1);
	f = profile__frame(l.p, profile__stack(l.p, 0)->frames[0]);
	assert_int_equal(f->addr, 0);
	assert_string_equal(f->dso, "/usr/bin/a");
	assert_string_equal(f->module, "a");
	loaded_free(&l);
	load(&l, text, &o);
	assert_int_equal(profile__nr_stacks(l.p), 2);
	f = profile__frame(l.p, profile__stack(l.p, 0)->frames[0]);
	assert_int_equal(f->addr, 0x401000);
	assert_int_equal(f->sym_off, 0x10);
	assert_string_equal(f->name, "main");
	loaded_free(&l);
}

/* Threads merge unless the output shows them. */
static void test_ids(void **state)
{
	static const char text[] = "a 1/1 1.0: cycles:\n\t 1 main (/a)\n\n"
				   "a 1/2 1.1: cycles:\n\t 1 main (/a)\n\n";
	struct reader_opts o = { .keep_ids = true };
	struct loaded l;

	(void)state;
	load(&l, text, NULL);
	assert_int_equal(profile__nr_stacks(l.p), 1);
	assert_int_equal(profile__stack(l.p, 0)->who.tid, 0);
	loaded_free(&l);
	load(&l, text, &o);
	assert_int_equal(profile__nr_stacks(l.p), 2);
	loaded_free(&l);
}

static void test_events(void **state)
{
	const struct profile_event *e;
	struct loaded l;

	(void)state;
	/* cpu-clock: a sample lasts its period (ns) */
	load(&l,
	     "a 1 [001] 10.000000: 250000 cpu-clock:\n\t 1 f (/a)\n\n"
	     "a 1 [000] 10.000250: 250000 cpu-clock:\n\t 1 g (/a)\n\n",
	     &timeline);
	assert_int_equal(profile__nr_events(l.p), 2);
	e = profile__event(l.p, 1);
	assert_int_equal(e->ts, 10000250000ULL);
	assert_int_equal(e->dur, 250000);
	assert_int_equal(e->cpu, 0);
	assert_string_equal(profile__meta(l.p)->event, "cpu-clock");
	loaded_free(&l);
	/* cycles: until the thread's next sample, at most 10 ms */
	load(&l,
	     "a 1 1.000: 1000 cycles:\n\t 1 f (/a)\n\nb 2 1.001: 5 cycles:\n\t 1 f (/a)\n\n"
	     "a 1 1.002: 1000 cycles:\n\t 1 f (/a)\n\na 1 3.0: 1000 cycles:\n\t 1 f (/a)\n\n",
	     &timeline);
	assert_int_equal(profile__nr_events(l.p), 4);
	assert_int_equal(profile__event(l.p, 0)->dur, 2000000);
	assert_int_equal(profile__event(l.p, 1)->dur, 1000000); /* alone on its thread: 1 ms */
	assert_int_equal(profile__event(l.p, 2)->dur, 10000000);
	assert_int_equal(profile__event(l.p, 3)->dur, 10000000);
	loaded_free(&l);
}

/* A probe's hit: its arguments after its event, argK=V as perf names an
 * SDT event's fields (K from 1): decimal, negative (signed), 0x hex, or a
 * string in quotes, spaces and all; anything else there is no argument. */
static void test_hit_args(void **state)
{
	const struct profile_event *e;
	struct loaded l;

	(void)state;
	load(&l,
	     "a 1 [001] 1.000000: 1 sdt_work:guarded: (55d0) arg1=0x10 arg2=7 arg3=010\n"
	     "\t 1 f (/a)\n\n"
	     "a 1 [001] 1.000001: 1 sdt_work:guarded: arg0=5 arg4=6 arg1=-1 arg2=1x arg=3 "
	     "arg3=18446744073709551615\n\t 1 f (/a)\n\n"
	     "a 1 [001] 1.000002: 1 sdt_work:guarded: \n\t 1 f (/a)\n\n"
	     "a 1 [001] 1.000003: 1 sdt_work:guarded: arg1=\"GET /users arg2=9\" arg2=-5 "
	     "arg3=\"x\"\n\t 1 f (/a)\n\n",
	     &timeline);
	assert_int_equal(profile__nr_events(l.p), 4);
	e = profile__event(l.p, 0);
	assert_true(e->flags & PROFILE_EVENT_INSTANT);
	assert_int_equal(e->args[0], 16);
	assert_int_equal(e->args[1], 7);
	assert_int_equal(e->args[2], 10);
	e = profile__event(l.p, 1);
	assert_true(e->flags & PROFILE_EVENT_INSTANT);
	assert_true(e->args[0] == UINT64_MAX);
	assert_true(e->flags & PROFILE_EVENT_ARG_SIGNED(0));
	assert_int_equal(e->args[1], 0);
	assert_true(e->args[2] == UINT64_MAX);
	assert_false(e->flags & PROFILE_EVENT_ARG_SIGNED(2));
	assert_false(profile__event(l.p, 2)->flags & PROFILE_EVENT_INSTANT);
	e = profile__event(l.p, 3);
	assert_string_equal(profile__event_str(l.p, e, 0), "GET /users arg2=9");
	assert_true((int64_t)e->args[1] == -5 && (e->flags & PROFILE_EVENT_ARG_SIGNED(1)));
	assert_string_equal(profile__event_str(l.p, e, 2), "x");
	loaded_free(&l);
}

static void test_meta(void **state)
{
	char *text = data_text("perf-old.perf");
	const struct profile_meta *m;
	struct loaded l;

	(void)state;
	load(&l, text, NULL);
	assert_int_equal(l.ret, 0);
	m = profile__meta(l.p);
	assert_string_equal(m->kernel, "4.13.0-rc1");
	assert_int_equal(m->ncpus, 8);
	assert_int_equal(m->freq, 0); /* perf script does not print the rate */
	assert_string_equal(m->event, "cycles");
	assert_non_null(strstr(m->cmdline, "perf record -e cycles"));
	assert_true(m->secs > 0.0101 && m->secs < 0.0102);
	assert_string_equal(l.st.event, "cycles");
	assert_int_equal(l.st.other_events, 1);
	assert_string_equal(l.st.other_event, "instructions");
	free(text);
	loaded_free(&l);
}

static void test_layouts(void **state)
{
	(void)state;
	/* records without frames count for their root alone */
	expect_folded("a 1 1.0: 5 cycles:\n\na 1 1.1: 5 cycles:\n\t 1 f (/a)\n\n", NULL, ROOT_COMM,
		      "a 1\na;f 1\n");
	expect_folded("a 1 1.0: 5 cycles:\n\na 1 1.1: 5 cycles:\n\t 1 f (/a)\n\n", &period,
		      ROOT_COMM, "a 5\na;f 5\n");
	/* several empty lines, a header comment block, CRLF */
	expect_folded("# hello\n#\n\n\na 1 1.0: cycles:\r\n\t 1 f (/a)\r\n\r\n\n\n", NULL,
		      ROOT_COMM, "a;f 1\n");
	/* no time, no event: one number after the COMM */
	expect_folded("seq 25780 \n\t 35c9 [unknown] (/usr/bin/seq)\n\n", NULL, ROOT_COMM,
		      "seq;[seq] 1\n");
	/* without call graphs: records of one line, some without a frame */
	expect_folded("  a 1 1.0: cycles:\n  a 1 1.1: cycles:  7f00 f+0x1 (/a)\n"
		      "  b 2 1.2: cycles:\n",
		      NULL, ROOT_COMM, "a 1\na;f 1\nb 1\n");
	/* side-band records (--show-mmap-events) are no samples */
	expect_folded("a 1 [000] 1.0: PERF_RECORD_MMAP2 1/1: [0x400000(0x1000) @ 0 08:01 12 0]: "
		      "r-xp /usr/bin/a\n"
		      "a 1 [000] 1.0: PERF_RECORD_COMM: a:1/1\n"
		      "a 1 [000] 1.1: cycles:\n\t 1 f (/a)\n\n",
		      NULL, ROOT_COMM, "a;f 1\n");
	/* a comm that is hex, in that layout */
	expect_folded("   dd 1 1.0: cycles:\n   cc1 2 1.1: cycles:\n", NULL, ROOT_COMM,
		      "cc1 1\ndd 1\n");
}

static void test_errors(void **state)
{
	(void)state;
	/* timelines need times */
	expect_error("a 1 cycles:\n\t 1 f (/a)\n\n", &timeline, -EINVAL,
		     "line 1: the record has no time");
	/* nothing but the header, or but odd lines */
	expect_error("# ========\n# hostname : x\n# ========\n", NULL, -ENODATA, "no stacks");
	/* --event that is not in the file */
	expect_error("a 1 1.0: cycles:\n\t 1 f (/a)\n\n", &(struct reader_opts){ .event = "instr" },
		     -ENODATA, "no records of event 'instr' in it (one of its events: 'cycles')");
}

/* TEXT reads as WANT (folded, root style ROOT), with what was left out or
 * guessed in *st. */
static void expect_lenient(const char *text, const struct reader_opts *o, enum root_style root,
			   const char *want, struct reader_stats *st)
{
	struct loaded l;
	char *got;

	load(&l, text, o);
	assert_int_equal(l.ret, 0);
	got = folded_of(l.p, root);
	if (strcmp(got, want))
		fail_msg("got\n%s--- expected\n%s---", got, want);
	free(got);
	*st = l.st;
	loaded_free(&l);
}

/* What stackcollapse-perf.pl and inferno read, this reads: one odd line is
 * skipped and counted, not the end of the file. */
static void test_lenient(void **state)
{
	struct reader_stats st;

	(void)state;
	/* an empty line inside a record: the frames after it are skipped */
	expect_lenient("a 1 1.0: cycles:\n\t 1 f (/a)\n\n\t 2 g (/a)\n\n", NULL, ROOT_COMM,
		       "a;f 1\n", &st);
	assert_true(st.skipped == 1 && st.first_skipped == 4);
	/* a frame line that is not ADDRESS SYMBOL (DSO), and a line of words */
	expect_lenient("a 1 1.0: cycles:\n\t 1 f (/a)\n\t what is this\n\t 2 g (/a)\n\n"
		       "random words here\nb 2 1.1: cycles:\n\t 1 f (/a)\n\n",
		       NULL, ROOT_COMM, "a;g;f 1\nb;f 1\n", &st);
	assert_true(st.skipped == 2 && st.first_skipped == 3);
	/* cut by head: no empty line after the last record, or no newline */
	expect_lenient("a 1 1.0: cycles:\n\t 1 f (/a)\n\nb 2 1.1: cycles:\n\t 1 f (/a)\n", NULL,
		       ROOT_COMM, "a;f 1\nb;f 1\n", &st);
	assert_true(st.unclosed && !st.cut_short && !st.skipped);
	expect_lenient("a 1 1.0: cycles:\n\t 1 f (/a)\n\nb 2 1.1: cycles:\n\t 3 h (/a)\n\t 2 g (/u",
		       NULL, ROOT_COMM, "a;f 1\nb;h 1\n", &st);
	assert_true(st.cut_short && st.cut_frame);
	/* cut after a whole frame line: it stays */
	expect_lenient("b 2 1.1: cycles:\n\t 3 h (/a)\n\t 2 g (/u)", NULL, ROOT_COMM, "b;g;h 1\n",
		       &st);
	assert_true(st.cut_short && !st.cut_frame);
	/* a record cut before its first frame counts as the script counts it */
	expect_lenient("a 1 1.0: cycles:\n\t 1 f (/a)\n\nb 2 1.1: cycles:\n", NULL, ROOT_COMM,
		       "a;f 1\nb 1\n", &st);
	assert_true(st.unclosed);
	/* perf script's default fields: no PID; --pids writes COMM-? */
	expect_lenient("a 1/1 1.0: cycles:\n\t 1 f (/a)\n\nb 2 1.1: cycles:\n\t 1 f (/a)\n\n",
		       &pids, ROOT_PID, "a-1;f 1\nb-?;f 1\n", &st);
	assert_int_equal(st.no_pid, 1);
	/* without -g: the leaf on the header line, its callers maybe after it */
	expect_lenient("false 39654 19115.489719: 1 cycles: 7fa68b1f2d84 _dl_start+0x4 (/l.so)\n"
		       "false 39654 19115.489801: 1 cycles: 7fa68b1f2d90 _dl_start+0x10 (/l.so)\n",
		       NULL, ROOT_COMM, "false;_dl_start 2\n", &st);
	expect_lenient("  dd  5 1.0: 1 cycles: 7f01 leaf (/l.so)\n\t7f02 caller (/l.so)\n\n"
		       "  dd  5 1.1: 1 cycles: 7f01 leaf (/l.so)\n"
		       "  dd  5 1.2: 1 cycles: 7f01 leaf (/l.so)\n",
		       NULL, ROOT_COMM, "dd;caller;leaf 1\ndd;leaf 2\n", &st);
	assert_int_equal(st.skipped, 0);
	/* -F +srcline: a source line under each frame is read past, not
	 * skipped as odd; a line of two words there still is */
	expect_lenient("a 1 1.0: cycles:\n\t 1 f (/a)\n  f.c:35\n\t 2 g (/l.so)\n  l.so[2a]\n"
		       "\t 3 k ([kernel.kallsyms])\n  [kernel.kallsyms][ffff81]\n\t 4 h (/a)\n"
		       "  two words\n\n",
		       NULL, ROOT_COMM, "a;h;k_[k];g;f 1\n", &st);
	assert_int_equal(st.srclines, 3);
	assert_true(st.skipped == 1 && st.first_skipped == 9);
}

/* Samples of varying periods: each counts 1, or its period with --period. */
static void test_period(void **state)
{
	static const char text[] = "a 1 1.0: 100 cycles:\n\t 1 f (/a)\n\n"
				   "a 1 1.1: 300 cycles:\n\t 1 f (/a)\n\n"
				   "a 1 1.2: cycles:\n\t 1 g (/a)\n\n"
				   "a 1 1.3: 0 cycles:\n\t 1 g (/a)\n\n";
	struct loaded l;

	(void)state;
	expect_folded(text, NULL, ROOT_COMM, "a;f 2\na;g 2\n");
	expect_folded(text, &period, ROOT_COMM, "a;f 400\na;g 2\n");
	/* the stack's count is the number of samples either way */
	load(&l, text, &period);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__stack(l.p, 0)->count, 2);
	assert_int_equal(profile__stack(l.p, 0)->weight, 400);
	assert_int_equal(profile__total_weight(l.p), 402);
	loaded_free(&l);
}

/* Traced calls: flamebpf's one event, and an earlier flamebpf's event per
 * function ("uprobe:FUNC"), all read together: none is another event. */
static void test_call_events(void **state)
{
	static const char one[] = "t 1 1.0: 500 uprobe:calls:\n\t 1 g (/a)\n\t 2 f (/a)\n\n"
				  "t 1 1.1: 300 uprobe:calls:\n\t 2 f (/a)\n\n";
	static const char per_func[] = "t 1 1.0: 500 uprobe:g:\n\t 1 g (/a)\n\t 2 f (/a)\n\n"
				       "t 1 1.1: 300 uprobe:f:\n\t 2 f (/a)\n\n";
	struct loaded l;

	(void)state;
	expect_folded(one, &period, ROOT_COMM, "t;f 300\nt;f;g 500\n");
	expect_folded(per_func, &period, ROOT_COMM, "t;f 300\nt;f;g 500\n");
	load(&l, per_func, &period);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.other_events, 0);
	loaded_free(&l);
}

/* A long input is read line by line: memory follows the unique stacks. */
static void test_large(void **state)
{
	char path[] = "/tmp/flamebpf-in.XXXXXX";
	struct reader_opts o = { .period = true };
	struct profile *p = NULL;
	struct reader_stats st;
	char err[READER_ERR_LEN];
	FILE *f = fdopen(u_temp_file(path, NULL, 0), "w");

	(void)state;
	assert_non_null(f);
	for (int i = 0; i < 60000; i++) {
		fprintf(f, "worker %d/%d [%03d] %d.%06d: 1001001 cpu-clock:pppH: \n", 100 + i % 9,
			100 + i % 13, i % 4, 1000 + i / 1000000, i % 1000000);
		for (int d = 0; d < 12; d++)
			fprintf(f, "\t%16x fn_%d_%d+0x%x (/usr/lib/libwork.so)\n", 0x7f000000 + i,
				d, (i * 7 + d) % 50 < 25 ? d : d + 100, i % 4096);
		fputc('\n', f);
	}
	assert_int_equal(fclose(f), 0);
	assert_int_equal(reader__load(path, &o, &p, NULL, &st, err), 0);
	unlink(path);
	assert_int_equal(st.records, 60000);
	assert_true(profile__nr_stacks(p) <= 50);
	assert_int_equal(profile__nr_events(p), 0);
	assert_int_equal(profile__total_weight(p), 60000ULL * 1001001);
	profile__free(p);
}

/* The text read whole and in two halves at once: the same profile. */
static void expect_split_same(const char *path, const struct reader_opts *base,
			      unsigned int want_halves /* 0: either */)
{
	struct reader_opts whole = *base, halves = *base;
	struct profile *a = NULL, *b = NULL;
	struct reader_stats sa, sb;
	char err[READER_ERR_LEN];
	char *fa, *fb;

	whole.split_min = UINT64_MAX;
	halves.split_min = 1;
	assert_int_equal(reader__load(path, &whole, &a, NULL, &sa, err), 0);
	assert_int_equal(reader__load(path, &halves, &b, NULL, &sb, err), 0);
	assert_int_equal(sa.halves, 1);
	if (want_halves)
		assert_int_equal(sb.halves, want_halves);
	fa = folded_of(a, ROOT_COMM);
	fb = folded_of(b, ROOT_COMM);
	assert_string_equal(fa, fb);
	assert_int_equal(sa.records, sb.records);
	assert_int_equal(sa.other_events, sb.other_events);
	assert_int_equal(profile__total_weight(a), profile__total_weight(b));
	assert_int_equal(profile__total_count(a), profile__total_count(b));
	assert_int_equal(profile__nr_stacks(a), profile__nr_stacks(b));
	assert_true(profile__meta(a)->secs == profile__meta(b)->secs);
	assert_string_equal(profile__meta(a)->event, profile__meta(b)->event);
	free(fa);
	free(fb);
	profile__free(a);
	profile__free(b);
}

static const char *write_text(char *path, const char *text)
{
	int fd = u_temp_file(path, NULL, 0);

	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* Real captures and synthetic records, each read whole and as two halves
 * (a split forced at any size): the same stacks, weights and figures. */
static void test_split_halves(void **state)
{
	/* the first two mix events: their halves may disagree on the one kept */
	static const struct {
		const char *name;
		unsigned int halves;
	} files[] = { { "perf-modern.perf", 0 },
		      { "perf-old.perf", 0 },
		      { "perf-real-cpuclock.perf", 2 },
		      { "perf-real-sched.perf", 2 },
		      { "perf-real-faults.perf", 2 } };
	char path[] = "/tmp/flamebpf-in.XXXXXX";
	struct strbuf t = {};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		expect_split_same(data_path(files[i].name), &(struct reader_opts){ 0 },
				  files[i].halves);
		expect_split_same(data_path(files[i].name), &period, files[i].halves);
	}
	for (int i = 0; i < 2000; i++)
		assert_int_equal(strbuf__addf(&t,
					      "w%d %d/%d [000] %d.%06d: %d cpu-clock:\n"
					      "\t 1 f%d (/a)\n\t 2 main (/a)\n\n",
					      i % 3, 9, 9, 1 + i / 1000, i % 1000 * 1000, i, i % 7),
				 0);
	expect_split_same(write_text(path, t.s), &period, 2);
	unlink(path);
	strbuf__free(&t);
}

/* The second half starts with another event than the first half's: the
 * halves would keep different events, so the file is read whole. */
static void test_split_other_event(void **state)
{
	char path[] = "/tmp/flamebpf-in.XXXXXX";
	struct strbuf t = {};
	struct reader_opts o = { .split_min = 1 };
	struct reader_stats st;
	struct profile *p = NULL;
	char err[READER_ERR_LEN];

	(void)state;
	/* the cycles records are longer: the middle of the file is among them */
	for (int i = 0; i < 200; i++)
		strbuf__addf(&t, "a 1 1.%03d: %s:\n\t 1 %s (/a)\n\n", i,
			     i < 100 ? "instructions" : "cycles",
			     i < 100 ? "f" : "a_function_with_a_much_longer_name_than_f");
	assert_int_equal(reader__load(write_text(path, t.s), &o, &p, NULL, &st, err), 0);
	assert_int_equal(st.records, 200);
	assert_int_equal(st.other_events, 100);
	assert_string_equal(st.event, "instructions");
	assert_int_equal(profile__total_weight(p), 100);
	assert_int_equal(st.halves, 1);
	expect_split_same(path, &(struct reader_opts){ 0 }, 1);
	unlink(path);
	profile__free(p);
	strbuf__free(&t);
}

/* A line skipped in the second half is named by its line in the whole
 * file: the file is read whole then. */
static void test_split_skipped_line(void **state)
{
	char path[] = "/tmp/flamebpf-in.XXXXXX";
	struct strbuf t = {};
	struct reader_opts o = { .split_min = 1 };
	struct profile *p = NULL;
	struct reader_stats st;
	char err[READER_ERR_LEN];

	(void)state;
	for (int i = 0; i < 300; i++)
		strbuf__addf(&t, "a 1 1.%d: cycles:\n\t 1 f (/a)\n\n", i);
	strbuf__addf(&t, "a 1 9.0: cycles:\n\t what is this\n\n");
	assert_int_equal(reader__load(write_text(path, t.s), &o, &p, NULL, &st, err), 0);
	assert_int_equal(st.skipped, 1);
	assert_int_equal(st.first_skipped, 902);
	assert_int_equal(st.halves, 1);
	assert_int_equal(profile__total_weight(p), 301);
	profile__free(p);
	unlink(path);
	strbuf__free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_files),
		cmocka_unit_test(test_split_halves),
		cmocka_unit_test(test_split_other_event),
		cmocka_unit_test(test_call_events),
		cmocka_unit_test(test_split_skipped_line),
		cmocka_unit_test(test_data_files_period),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_thread_comm_kept),
		cmocka_unit_test(test_frame_names),
		cmocka_unit_test(test_frame_kinds),
		cmocka_unit_test(test_same_line_other_root),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_hit_args),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_lenient),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests_name("in_perf", tests, NULL, NULL);
}
