/* Which binaries a target maps, or will map: the files whose functions uprobe
 * mode can trace. */
#ifndef FLAMEBPF_BINARIES_H
#define FLAMEBPF_BINARIES_H

#include <stdbool.h>
#include <sys/types.h>

#include "binary_list.h"

/* binaries__of_pid() and binaries__of_command() append to out (initialised
 * by the caller, e.g. to { 0 }) the files it does not hold yet; on error out
 * may hold part of them (-ENOMEM) or is left as it was. */

/* The file-backed executable mappings of a live process, its executable first.
 * Returns 0, -ESRCH when the process is gone, -EACCES, or -errno. */
int binaries__of_pid(pid_t pid, struct binaries *out);

/* What `execvp(file, ...)` would map: first the program, found as execvp
 * finds it (along PATH; a script is replaced by its #! interpreter, or by
 * NAME for "#!/usr/bin/env NAME", another non-ELF file by /bin/sh), then
 * the libraries ld.so loads for it (ldso__add_closure()). Paths are
 * canonical. What it will dlopen() cannot be known. Returns 0, -ENOENT when
 * file is not found, -EACCES when it is not executable, or -errno. */
int binaries__of_command(const char *file, struct binaries *out);

/* Whether file, found as execvp finds it, is a script: 0 and in *runner
 * the ELF program that runs it (the end of its #! chain), or NULL for a
 * program that is not a script. -errno as binaries__of_command(). */
int binaries__script_runner(const char *file, char **runner);

/* How well a library name BINARY spec names the file at path (by its basename):
 * 0 the same name ("libc.so.6"), 1 the name plus ".so..." ("libc" for
 * "libc.so.6"), or plus a version when spec has ".so" ("libc.so" for
 * "libc.so.6"), 2 the name plus "-VERSION.so..." ("libc" for "libc-2.31.so");
 * -1 no match ("libc" never names "libcrypto.so.3"). */
int binaries__name_rank(const char *spec, const char *path);

/* Whether name is a program found as execvp finds it (along PATH when it
 * has no '/'): 0 and its path in *path (the caller frees it), -ENOENT,
 * -EACCES when only files that are not executable were found, or -ENOMEM. */
int binaries__find_program(const char *name, char **path);

/* Appends to out the binary BINARY spec names: a path (with a '/'; it must be
 * an ELF file), or a library name searched among the target's binaries first
 * (target may be NULL: system-wide), then in the library directories of
 * ld.so (/etc/ld.so.conf, the default ones), where a library the target will
 * dlopen() lives too, then a program of that name along PATH ("gzip", as
 * bpftrace's uprobe:gzip:... finds it). Returns 0, -ENOENT (not found),
 * -EISDIR, -ENOEXEC (not ELF), or -errno. */
int binaries__resolve(const char *spec, const struct binaries *target, struct binaries *out);

#endif
