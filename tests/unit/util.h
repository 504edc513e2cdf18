/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the unit tests: binutils run as the source of truth, the
 * fixtures of tests/fixtures/ run as children, and temporary files. Each one
 * fails (or skips) the current cmocka test when something goes wrong.
 */
#ifndef FLAMEBPF_UNIT_UTIL_H
#define FLAMEBPF_UNIT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ---- binutils ---- */

/* Runs PATH with ARGV, without a shell; the returned stream reads its stdout. */
FILE *u_run_reader(const char *path, char *const argv[], pid_t *pid);
/*
 * Runs /usr/bin/ARGV[0] without a shell, or skips the test when it is not
 * installed; the returned stream reads its stdout.
 */
FILE *u_run_tool(char *const argv[], pid_t *pid);
/* Closes F and waits for PID, which must have exited 0. */
void u_reap_tool(FILE *f, pid_t pid);

/* A function symbol as readelf -sW prints it. */
struct u_rsym {
	uint64_t value, size;
	char *name; /* without the @@VERSION of a default version, with another's @VERSION */
};

/* What readelf -sW -lW says about a binary. */
struct u_readelf {
	struct u_rsym *syms; /* functions with a name, defined at a non-zero address */
	size_t nsyms;
	uint64_t seg[8][3]; /* executable PT_LOADs: offset, vaddr, filesz */
	size_t nsegs;
};

struct u_readelf u_readelf(const char *path);
void u_readelf_free(struct u_readelf *r);

/* ---- fixtures ---- */

#define U_MAX_ADDRS 64

/* A fixture run as "PATH addrs": it prints "NAME 0xADDR" lines up to "end",
 * then waits for its stdin to close. */
struct u_fixture {
	pid_t pid; /* 0 once reaped */
	FILE *out;
	int in;
	size_t n;
	char names[U_MAX_ADDRS][64];
	uint64_t addrs[U_MAX_ADDRS];
};

/* Starts PATH and reads the addresses it prints; it stays alive until reaped. */
void u_fixture_spawn(struct u_fixture *c, const char *path);
/* The address the fixture printed for NAME; fails the test when it printed none. */
uint64_t u_fixture_addr(const struct u_fixture *c, const char *name);
/* Lets it exit and waits for it: it must exit 0. Nothing once reaped. */
void u_fixture_reap(struct u_fixture *c);
/* Kills it and waits for it, for a teardown. Nothing once reaped. */
void u_fixture_kill(struct u_fixture *c);

/* How many functions tests/fixtures/symfix.c prints. */
#define U_SYMFIX_NSYMS 16
/* The name symfix's address printed as TAKEN must resolve to. */
const char *u_symfix_expected(const char *taken);

/* ---- files ---- */

/* This test binary's path, in static storage. */
const char *u_self_exe(void);

/* DIR/NAME in the repository, found from the test binary's place in
 * build/tests/unit; in static storage. */
const char *u_repo_file(const char *dir, const char *name);
/*
 * Creates a file from TEMPLATE ("/tmp/NAME.XXXXXX", completed in place)
 * holding LEN bytes of BUF; returns it open for reading and writing.
 */
int u_temp_file(char *template, const void *buf, size_t len);
/* Copies FROM into the open file OUT, makes OUT executable and closes it. */
void u_copy_to(const char *from, int out);
/* Copies FROM to TO, a new executable file. */
void u_copy_file(const char *from, const char *to);

#endif
