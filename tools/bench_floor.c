// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of a traced call, for tools/bench_trace.sh: attaches the empty
 * program of bench_floor.bpf.o at a function's entry and return the way
 * KIND says, runs COMMAND, and exits with its status.
 *
 *   bench_floor OBJECT KIND BINARY FUNC [RET] -- COMMAND...
 *	KIND: pair (a classic uprobe and uretprobe, perf_event uprobe PMU),
 *	multi (a uprobe_multi link for each), session (one uprobe session
 *	link: the program runs at the entry and the return). RET, a symbol
 *	on FUNC's ret instruction: the return is a probe there (not with
 *	session).
 *   bench_floor OBJECT sample FREQ -- COMMAND...
 *	A cpu-clock sample of COMMAND FREQ times a second runs the
 *	program (default sample_empty), COMMAND's pid put in its procs map
 *	first; at the end its run time per sample goes to stderr
 *	("bench_floor: NAME: N runs, T ns a run").
 *   BENCH_FLOOR_PROG=NAME attaches the object's program NAME (default
 *	empty) and leaves the others unloaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/uprobe_multi.h"
#include "symbols/elf_file.h"

struct find {
	const char *name;
	uint64_t addr;
};

static int match_sym(void *arg, size_t i, const GElf_Sym *s, const char *name)
{
	struct find *f = arg;

	(void)i;
	if (strcmp(name, f->name) || GELF_ST_TYPE(s->st_info) != STT_FUNC)
		return 0;
	f->addr = s->st_value;
	return 1;
}

static int to_offset(void *arg, Elf *elf, const GElf_Phdr *ph)
{
	uint64_t *addr = arg;

	(void)elf;
	if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || *addr < ph->p_vaddr ||
	    *addr >= ph->p_vaddr + ph->p_filesz)
		return 0;
	*addr = *addr - ph->p_vaddr + ph->p_offset;
	return 1;
}

/* The file offset of function name in path (.symtab, else .dynsym). */
static int symbol_offset(const char *path, const char *name, uint64_t *off)
{
	struct find f = { name, 0 };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = elf_file__open(fd, &elf);
	if (err)
		goto out;
	while (!f.addr && (scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    elf_file__each_sym(elf, scn, &sh, match_sym, &f) < 0)
			break;
	}
	err = !f.addr ? -ENOENT : elf_file__each_phdr(elf, to_offset, &f.addr) == 1 ? 0 : -ENOEXEC;
	*off = f.addr;
	elf_end(elf);
out:
	close(fd);
	return err;
}

/* Entry and return probes at off[0] and off[1]: the return a uretprobe
 * when ret_insn is false, else a uprobe on a ret instruction. */
static int attach_pair(struct bpf_program *prog, const char *path, const uint64_t *off,
		       bool ret_insn, struct bpf_link **links)
{
	for (int i = 0; i < 2; i++) {
		links[i] = bpf_program__attach_uprobe(prog, i && !ret_insn, -1, path,
						      off[i && ret_insn]);
		if (!links[i])
			return -errno;
	}
	return 0;
}

static int attach_multi(int prog_fd, bool session, const char *path, const uint64_t *off,
			bool ret_insn, int *fds)
{
	uint64_t cookie = 0;

	for (int i = 0; i < (session ? 1 : 2); i++) {
		fds[i] = uprobe_multi__attach(prog_fd, path, &off[i && ret_insn], &cookie, 1,
					      session	       ? UPROBE_MULTI_SESSION
					      : i && !ret_insn ? UPROBE_MULTI_RETURN
							       : UPROBE_MULTI_ENTRY,
					      -1);
		if (fds[i] < 0)
			return fds[i];
	}
	return 0;
}

static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "bench_floor: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The program's run time per run so far, to stderr. */
static int report_runs(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -errno;
	fprintf(stderr, "bench_floor: %s: %llu runs, %llu ns a run\n", bpf_program__name(prog),
		(unsigned long long)info.run_cnt,
		(unsigned long long)(info.run_cnt ? info.run_time_ns / info.run_cnt : 0));
	return 0;
}

/* Samples pid with prog freq times a second (cpu-clock): the event's fd. */
static int sample_pid(struct bpf_program *prog, pid_t pid, unsigned long freq,
		      struct bpf_link **link)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = freq,
	};
	int fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	*link = bpf_program__attach_perf_event(prog, fd);
	if (!*link) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* bench_floor OBJECT sample FREQ -- COMMAND...: COMMAND is forked and held
 * until its event is on, so that every sample of it runs the program. */
static int sample_main(const char *path, const char *freq_arg, char **argv)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	const char *name = getenv("BENCH_FLOOR_PROG") ?: "sample_empty";
	struct proc_info_value {
		__u64 words[16];
	} info = {};
	struct bpf_link *link = NULL;
	struct bpf_program *prog, *other;
	int go[2] = { -1, -1 }, status, err, stats = -1, ev = -1;
	char *end;
	unsigned long freq = strtoul(freq_arg, &end, 10);
	pid_t pid = -1;
	__u32 key;

	if (!obj) {
		fprintf(stderr, "bench_floor: %s: %s\n", path, strerror(errno));
		return 1;
	}
	err = *end || !freq ? -EINVAL : 0;
	prog = err ? NULL : bpf_object__find_program_by_name(obj, name);
	if (!prog) {
		fprintf(stderr, "bench_floor: %s\n",
			err ? "FREQ: a number of samples a second" : "no such program");
		err = -EINVAL;
		goto out;
	}
	bpf_object__for_each_program(other, obj) bpf_program__set_autoload(other, other == prog);
	err = bpf_object__load(obj);
	if (err || pipe2(go, O_CLOEXEC) || (pid = fork()) < 0) {
		err = err ?: -errno;
		goto out;
	}
	if (!pid) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execvp(argv[0], argv);
		fprintf(stderr, "bench_floor: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	key = pid;
	err = bpf_map__update_elem(bpf_object__find_map_by_name(obj, "procs"), &key,
				   sizeof(key), &info, sizeof(info), BPF_ANY);
	stats = err ? -1 : bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (!err && stats < 0)
		err = -errno;
	ev = err ? -1 : sample_pid(prog, pid, freq, &link);
	if (ev < 0 && !err)
		err = ev;
	/* closed without a byte: the child exits */
	if (!err && write(go[1], "g", 1) != 1)
		err = -errno;
	close(go[1]);
	if (waitpid(pid, &status, 0) < 0 && !err)
		err = -errno;
	if (!err)
		err = report_runs(prog);
	if (!err)
		err = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	if (err < 0)
		fprintf(stderr, "bench_floor: sampling with %s: %s\n", name, strerror(-err));
	bpf_link__destroy(link);
	if (ev >= 0)
		close(ev);
	if (stats >= 0)
		close(stats);
	bpf_object__close(obj);
	return err < 0 ? 1 : err;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[2] = { NULL, NULL };
	int fds[2] = { -1, -1 }, err = 0, dash;
	struct bpf_object *obj = NULL;
	struct bpf_program *prog, *other;
	const char *name;
	uint64_t off[2] = { 0, 0 };
	bool multi, session, ret_insn;

	for (dash = 1; dash < argc && strcmp(argv[dash], "--"); dash++)
		;
	if (argc > 2 && !strcmp(argv[2], "sample")) {
		if (dash != 4 || dash + 1 >= argc) {
			fprintf(stderr, "usage: bench_floor OBJECT sample FREQ -- COMMAND...\n");
			return 2;
		}
		return sample_main(argv[1], argv[3], argv + dash + 1);
	}
	if ((dash != 5 && dash != 6) || dash + 1 >= argc ||
	    (strcmp(argv[2], "pair") && strcmp(argv[2], "multi") && strcmp(argv[2], "session"))) {
		fprintf(stderr, "usage: bench_floor OBJECT pair|multi|session BINARY FUNC [RET] -- "
				"COMMAND...\n       bench_floor OBJECT sample FREQ -- COMMAND...\n");
		return 2;
	}
	multi = strcmp(argv[2], "pair");
	session = !strcmp(argv[2], "session");
	ret_insn = dash == 6;
	if (session && ret_insn) {
		fprintf(stderr, "bench_floor: a session's return is a uretprobe: no RET\n");
		return 2;
	}
	for (int i = 0; i < dash - 4 && !err; i++) {
		err = symbol_offset(argv[3], argv[4 + i], &off[i]);
		if (err)
			fprintf(stderr, "bench_floor: %s in %s: %s\n", argv[4 + i], argv[3],
				strerror(-err));
	}
	if (err)
		return 1;
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bench_floor: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	name = getenv("BENCH_FLOOR_PROG") ?: "empty";
	prog = bpf_object__find_program_by_name(obj, name);
	if (!prog) {
		fprintf(stderr, "bench_floor: %s has no program \"%s\"\n", argv[1], name);
		bpf_object__close(obj);
		return 1;
	}
	bpf_object__for_each_program(other, obj) bpf_program__set_autoload(other, other == prog);
	if (multi)
		bpf_program__set_expected_attach_type(prog, session ? UPROBE_SESSION_ATTACH_TYPE
								    : UPROBE_MULTI_ATTACH_TYPE);
	err = bpf_object__load(obj);
	if (!err)
		err = multi ? attach_multi(bpf_program__fd(prog), session, argv[3], off, ret_insn,
					   fds)
			    : attach_pair(prog, argv[3], off, ret_insn, links);
	if (err)
		fprintf(stderr, "bench_floor: %s probes on %s: %s\n", argv[2], argv[4],
			strerror(-err));
	else
		err = run(argv + dash + 1);
	for (int i = 0; i < 2; i++) {
		bpf_link__destroy(links[i]);
		if (fds[i] >= 0)
			close(fds[i]);
	}
	bpf_object__close(obj);
	return err < 0 ? 1 : err;
}
