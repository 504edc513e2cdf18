// SPDX-License-Identifier: GPL-2.0
#include "beam_workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bw_require_program(const char *path, const char *package)
{
	if (access(path, X_OK)) {
		print_message("SKIP: %s is not installed (Debian's %s)\n", path, package);
		skip();
	}
}

/* Maps left by the processes of root COMM: the test removes them. */
void bw_remove_perf_maps(const struct h_folded *f, const char *want)
{
	char root[256], comm[64], path[64];
	long pid, tid;

	for (size_t i = 0; i < f->n; i++) {
		h_root(f->lines[i].stack, root, sizeof(root));
		if (h_root_ids(root, comm, sizeof(comm), &pid, &tid) || strcmp(comm, want))
			continue;
		snprintf(path, sizeof(path), "/tmp/perf-%ld.map", pid);
		unlink(path);
	}
}

bool bw_has_text(const char *stack, const void *text)
{
	return strstr(stack, text) != NULL;
}

bool bw_of_comm(const char *stack, const void *comm)
{
	size_t len = strlen(comm);

	return !strncmp(stack, comm, len) && stack[len] == '-';
}

/* The "runtimes:" line of the summary, which must be there. */
const char *bw_runtimes_line(const struct h_result *r, char *buf, size_t len)
{
	if (!h_find_line(r->err, "flamebpf: runtimes: ", buf, len)) {
		h_dump(r, "flamebpf");
		fail_msg("the summary has no runtimes line");
	}
	return buf;
}

/* Its "N% of its samples named". */
int bw_named_share(const char *line)
{
	const char *p = strstr(line, "% of its samples named");
	int pct = -1;

	while (p && p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p)
		sscanf(p, "%d", &pct);
	return pct;
}

/* heavy/0 and light/0 named (their names contain heavy and light), split
 * 70/30 within 10 points, and most of the samples in the workload's module
 * (frames holding module) in them. Not most of the node's: how long Elixir
 * takes to compile the script before running it depends on the machine's
 * load, and that time is sampled too. */
void bw_expect_split(const struct h_folded *f, const char *module, const char *heavy,
		     const char *light)
{
	unsigned long long h = h_sum(f, bw_has_text, heavy), l = h_sum(f, bw_has_text, light);
	unsigned long long own = h_sum(f, bw_has_text, module);
	unsigned long long beam = h_sum(f, bw_of_comm, "beam.smp");

	print_message("%llu samples of beam.smp, %llu in %s: %llu in %s, %llu in %s "
		      "(%.1f%% : %.1f%%)\n",
		      beam, own, module, h, heavy, l, light, h + l ? 100.0 * h / (h + l) : 0,
		      h + l ? 100.0 * l / (h + l) : 0);
	if (h + l < own / 2 || own < 200) {
		h_folded_dump(f, 20);
		fail_msg("%s and %s are not named in most of %s's samples", heavy, light, module);
	}
	if (h * 100 < (h + l) * 60 || h * 100 > (h + l) * 80)
		fail_msg("%s has %.1f%% of the work, expected 70%% within 10", heavy,
			 100.0 * h / (h + l));
}

/* Runs a BEAM command under -F 499 with ERL_FLAGS (NULL: none). */
void bw_run_node(const char *erl_flags, const char *out, struct h_result *r, struct h_folded *f,
		 const char *const cmd[])
{
	const char *argv[16] = { h_flamebpf(), "-F", "499", "--pids", "-o", out, "--" };
	size_t n = 7;

	for (size_t i = 0; cmd[i] && n < 15; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	if (erl_flags)
		setenv("ERL_FLAGS", erl_flags, 1);
	else
		unsetenv("ERL_FLAGS");
	h_run_folded(r, 90, out, f, argv);
	unsetenv("ERL_FLAGS");
	bw_remove_perf_maps(f, "beam.smp");
}

const char *bw_compile_busy_erl(void)
{
	struct h_result r;

	assert_int_equal(
		h_run(&r, 60, H_ARGV("erlc", "-o", h_tmpdir(), "tests/workloads/busy.erl")), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	return h_tmpdir();
}
