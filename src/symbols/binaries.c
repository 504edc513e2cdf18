// SPDX-License-Identifier: GPL-2.0
/* The binaries of a target: a live process's file mappings, or the files a
 * command will map (the program found the way execvp finds it, its
 * libraries by ldso.c); and library names as users write them ("libc",
 * "libc.so.6") to files.
 */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "binaries.h"
#include "binary_list.h"
#include "ldso.h"
#include "proc_maps.h"

#define DEFAULT_PATH	 "/bin:/usr/bin" /* execvp's, when PATH is unset */
#define INTERP_DEPTH_MAX 4		 /* #! chains: the kernel's BINPRM_MAX_RECURSION */

/* ------------------------------------------------------------------ */
/* A live process                                                     */

static void cut_deleted(char *path)
{
	static const char suffix[] = " (deleted)";
	size_t len = strlen(path), sl = sizeof(suffix) - 1;

	if (len > sl && !strcmp(path + len - sl, suffix))
		path[len - sl] = '\0';
}

static bool is_file(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;

	return !stat(path, &st) && st.st_dev == dev && st.st_ino == ino;
}

/* Where this process reads what pid maps at m: the path itself, else the
 * same path under pid's root (another mount namespace), else the mapping
 * (a deleted or replaced file; needs CAP_SYS_ADMIN), else the path anyway. */
static char *open_path_of(pid_t pid, const struct map_entry *m, const char *path, dev_t dev)
{
	char *alt;

	if (is_file(path, dev, m->inode))
		return strdup(path);
	if (asprintf(&alt, "/proc/%d/root%s", pid, path) < 0)
		return NULL;
	if (is_file(alt, dev, m->inode))
		return alt;
	free(alt);
	if (asprintf(&alt, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end) < 0)
		return NULL;
	if (is_file(alt, dev, m->inode))
		return alt;
	free(alt);
	return strdup(path);
}

static int add_mapping(struct binaries *b, pid_t pid, const struct map_entry *m)
{
	struct target_binary e = { .dev = makedev(m->dev_major, m->dev_minor), .ino = m->inode };
	int err = -ENOMEM;

	/* Not a file: "", "[vdso]", "[vsyscall]", ... */
	if (m->path[0] != '/' || binaries__find(b, e.dev, e.ino) >= 0)
		return 0;
	e.path = strdup(m->path);
	if (e.path) {
		cut_deleted(e.path);
		e.open_path = open_path_of(pid, m, e.path, e.dev);
	}
	if (e.open_path)
		err = binaries__add(b, &e);
	free(e.path);
	free(e.open_path);
	return err;
}

static ssize_t find_path(const struct binaries *b, const char *path)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		if (!strcmp(b->v[i].path, path))
			return (ssize_t)i;
	}
	return -1;
}

/* Moves the process's executable to the front: by path, else by file. */
static void exe_first(struct binaries *b, pid_t pid)
{
	char link[64], exe[PATH_MAX];
	struct target_binary e;
	struct stat st;
	ssize_t i = -1, n;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		cut_deleted(exe);
		i = find_path(b, exe);
	}
	if (i < 0 && !stat(link, &st))
		i = binaries__find(b, st.st_dev, st.st_ino);
	if (i <= 0)
		return;
	e = b->v[i];
	memmove(b->v + 1, b->v, (size_t)i * sizeof(*b->v));
	b->v[0] = e;
}

/* Appends the files of src that dst does not have yet. */
static int add_all(struct binaries *dst, const struct binaries *src)
{
	size_t i;
	int err = 0;

	for (i = 0; i < src->n && !err; i++)
		err = binaries__add(dst, &src->v[i]);
	return err;
}

int binaries__of_pid(pid_t pid, struct binaries *out)
{
	struct binaries b = { 0 };
	struct proc_maps maps;
	size_t i;
	int err;

	err = proc_maps__read(pid, &maps);
	if (err)
		return err;
	for (i = 0; i < maps.n && !err; i++)
		err = add_mapping(&b, pid, &maps.v[i]);
	proc_maps__free(&maps);
	if (!err) {
		exe_first(&b, pid);
		err = add_all(out, &b);
	}
	binaries__free(&b);
	return err;
}

/* ------------------------------------------------------------------ */
/* A command: the program                                             */

/* Returns 0 and a copy of path when it is an executable regular file,
 * -EACCES when it is another file, or -errno. */
static int check_program(const char *path, char **out)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return -EACCES;
	*out = strdup(path);
	return *out ? 0 : -ENOMEM;
}

static int try_path_dir(const char *dir, size_t len, const char *file, char **path)
{
	char *cand;
	int err;

	/* An empty PATH element is the current directory. */
	if (asprintf(&cand, "%.*s%s%s", (int)len, dir, len ? "/" : "", file) < 0)
		return -ENOMEM;
	err = check_program(cand, path);
	free(cand);
	return err;
}

/* As execvp: file itself when it has a '/', else the first executable along
 * PATH; -EACCES when only non-executable ones were found. */
int binaries__find_program(const char *file, char **path)
{
	const char *p = getenv("PATH"), *end;
	int err = -ENOENT, e;

	if (!*file)
		return -ENOENT;
	if (strchr(file, '/'))
		return check_program(file, path);
	for (p = p ? p : DEFAULT_PATH;; p = end + 1) {
		end = strchrnul(p, ':');
		e = try_path_dir(p, (size_t)(end - p), file, path);
		if (!e || e == -ENOMEM)
			return e;
		if (e == -EACCES)
			err = e;
		if (!*end)
			return err;
	}
}

/* The #! line of a script (without "#!"); execvp runs "/bin/sh" for any
 * other file that is not ELF (and so does an empty #!). NULL for an ELF file. */
static int interpreter_of(const char *path, char **line)
{
	const char *p = "/bin/sh";
	char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = -errno;
	close(fd);
	if (n < 0)
		return err;
	buf[(size_t)n] = '\0';
	*line = NULL;
	if (n >= SELFMAG && !memcmp(buf, ELFMAG, SELFMAG))
		return 0;
	if (n >= 2 && buf[0] == '#' && buf[1] == '!') {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[2 + strspn(buf + 2, " \t")])
			p = buf + 2;
	}
	*line = strdup(p);
	return *line ? 0 : -ENOMEM;
}

/* The program a #! line runs: its interpreter, or for the common
 * "/usr/bin/env [-S] NAME" the NAME that env finds along PATH and execs. */
static int shebang_program(char *line, char **path)
{
	char *save, *interp = strtok_r(line, " \t", &save), *arg = strtok_r(NULL, " \t", &save);
	const char *base = strrchr(interp, '/');

	if (arg && !strcmp(arg, "-S"))
		arg = strtok_r(NULL, " \t", &save);
	if (arg && *arg != '-' && !strcmp(base ? base + 1 : interp, "env"))
		return binaries__find_program(arg, path);
	return check_program(interp, path);
}

/* The ELF file that runs when file is executed. */
static int resolve_program(const char *file, char **path)
{
	char *p = NULL, *line = NULL;
	int err = binaries__find_program(file, &p), depth;

	for (depth = 0; !err; depth++) {
		err = interpreter_of(p, &line);
		if (err || !line)
			break;
		free(p);
		p = NULL;
		err = depth < INTERP_DEPTH_MAX ? shebang_program(line, &p) : -ELOOP;
		free(line);
	}
	if (err) {
		free(p);
		return err;
	}
	*path = p;
	return 0;
}

int binaries__script_runner(const char *file, char **runner)
{
	char *path = NULL, *line = NULL;
	int err = binaries__find_program(file, &path);

	*runner = NULL;
	if (!err)
		err = interpreter_of(path, &line);
	if (!err && line)
		err = resolve_program(file, runner);
	free(line);
	free(path);
	return err;
}

int binaries__of_command(const char *file, struct binaries *out)
{
	struct binaries b = { 0 };
	char *path = NULL;
	int err;

	err = resolve_program(file, &path);
	if (!err)
		err = binaries__add_path(&b, path);
	if (!err)
		err = ldso__add_closure(&b);
	if (!err)
		err = add_all(out, &b);
	free(path);
	binaries__free(&b);
	return err;
}

/* ------------------------------------------------------------------ */
/* BINARY specs                                                       */

/* ".so" at the end, or before a version: ".so", ".so.6". */
static bool so_suffix(const char *s)
{
	return !strncmp(s, ".so", 3) && (s[3] == '\0' || s[3] == '.');
}

/* ".6", ".1.2.3". */
static bool version_suffix(const char *s)
{
	return *s == '.' && isdigit((unsigned char)s[1]) && !s[strspn(s, ".0123456789")];
}

int binaries__name_rank(const char *spec, const char *path)
{
	const char *base = strrchr(path, '/'), *rest, *so;
	size_t len = strlen(spec);

	base = base ? base + 1 : path;
	if (!len || strncmp(base, spec, len))
		return -1;
	rest = base + len;
	if (!*rest)
		return 0;
	if (so_suffix(rest) || (strstr(spec, ".so") && version_suffix(rest)))
		return 1;
	if (*rest == '-' && (so = strstr(rest, ".so")) && so_suffix(so))
		return 2;
	return -1;
}

static ssize_t best_in_target(const struct binaries *t, const char *spec)
{
	int rank, best_rank = INT_MAX;
	ssize_t best = -1;
	size_t i;

	for (i = 0; t && i < t->n; i++) {
		rank = binaries__name_rank(spec, t->v[i].path);
		if (rank >= 0 && rank < best_rank) {
			best = (ssize_t)i;
			best_rank = rank;
		}
	}
	return best;
}

/* The best library file for a spec so far. */
struct pick {
	char *path; /* DIR/NAME */
	const char *name;
	size_t dir; /* index of DIR in the search list */
	int rank;
};

/* Better rank wins; at the same rank the earlier directory, and in one
 * directory the higher version (libssl.so.3 over libssl.so.1.1). */
static bool better(const struct pick *p, int rank, size_t dir, const char *name)
{
	if (!p->path || rank != p->rank)
		return !p->path || rank < p->rank;
	return dir == p->dir && strverscmp(name, p->name) > 0;
}

/* dir/name when it is a better match, and a library for this process. */
static int consider(struct pick *p, const char *dir, size_t dir_idx, const char *name,
		    const char *spec)
{
	int rank = binaries__name_rank(spec, name);
	char *cand;

	if (rank < 0 || !better(p, rank, dir_idx, name))
		return 0;
	if (asprintf(&cand, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	if (!ldso__same_kind(cand, "/proc/self/exe")) {
		free(cand);
		return 0;
	}
	free(p->path);
	*p = (struct pick){ cand, cand + strlen(dir) + 1, dir_idx, rank };
	return 0;
}

/* Scans each directory of a ':'-separated list (modified) for spec. */
static int scan_dirs(char *list, const char *spec, struct pick *p)
{
	char *dir, *save;
	struct dirent *e;
	size_t i = 0;
	DIR *d;
	int err = 0;

	for (dir = strtok_r(list, ":", &save); dir && !err; dir = strtok_r(NULL, ":", &save), i++) {
		d = opendir(dir);
		if (!d)
			continue;
		while (!err && (e = readdir(d)))
			err = consider(p, dir, i, e->d_name, spec);
		closedir(d);
	}
	return err;
}

/* A library by name, system-wide: in ld.so's directories, of this
 * program's kind. */
static int resolve_in_dirs(const char *spec, struct binaries *out)
{
	struct strbuf dirs = { 0 };
	struct pick p = { 0 };
	int err = ldso__lib_dirs(&dirs);

	if (!err)
		err = scan_dirs(dirs.s, spec, &p);
	if (!err)
		err = p.path ? binaries__add_path(out, p.path) : -ENOENT;
	free(p.path);
	strbuf__free(&dirs);
	return err;
}

int binaries__resolve(const char *spec, const struct binaries *target, struct binaries *out)
{
	char *path = NULL;
	ssize_t i;
	int err;

	if (!*spec)
		return -ENOENT;
	if (strchr(spec, '/'))
		return binaries__add_path(out, spec);
	i = best_in_target(target, spec);
	if (i >= 0)
		return binaries__add(out, &target->v[i]);
	err = resolve_in_dirs(spec, out);
	if (err != -ENOENT || binaries__find_program(spec, &path))
		return err;
	err = binaries__add_path(out, path);
	free(path);
	return err;
}
