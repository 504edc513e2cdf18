// SPDX-License-Identifier: GPL-2.0
/* The libraries ld.so loads for an executable, found the way it finds them
 * (glibc's rtld: elf/dl-load.c), without running it. ld.so's cache is not
 * read: /etc/ld.so.conf names the directories the cache was built from.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ldso.h"

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#else
#define MULTIARCH ""
#endif

/* Where ld.so looks after its cache (Debian's multiarch layout first). */
static const char default_dirs[] =
	"/lib/" MULTIARCH ":/usr/lib/" MULTIARCH ":/lib64:/usr/lib64:/lib:/usr/lib";

#define LD_SO_CONF     "/etc/ld.so.conf"
#define LD_SO_PRELOAD  "/etc/ld.so.preload"
#define CONF_DEPTH_MAX 8 /* nested "include"s of ld.so.conf */

/* What ld.so compares before it takes a library: class, byte order, machine. */
struct elf_ident {
	unsigned char class, data;
	uint16_t machine; /* raw, in the file's byte order */
};

/* The dynamic-linking facts of one ELF file. */
struct dyn_info {
	char *interp; /* PT_INTERP */
	char **needed;
	size_t nneeded;
	char *rpath, *runpath;
};

/* How an executable's libraries are searched. */
struct search {
	struct elf_ident want; /* the executable's: other kinds are skipped */
	struct dyn_info exe;
	char *exe_origin;
	const char *env;    /* LD_LIBRARY_PATH */
	struct strbuf conf; /* the directories of /etc/ld.so.conf, ':'-separated */
};

/* Returns 0, or -ENOEXEC when fd holds no ELF header. */
static int read_ident(int fd, struct elf_ident *id)
{
	unsigned char h[EI_NIDENT + 4];

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return -ENOEXEC;
	id->class = h[EI_CLASS];
	id->data = h[EI_DATA];
	/* e_machine follows e_type, at the same place in both classes. */
	memcpy(&id->machine, h + EI_NIDENT + 2, sizeof(id->machine));
	return 0;
}

/* The identity of the regular ELF file at path. Returns 0 or -errno. */
static int ident_of(const char *path, struct elf_ident *id)
{
	struct stat st;
	int fd, err;

	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_ident(fd, id);
	close(fd);
	return err;
}

static bool same_kind(const struct elf_ident *a, const struct elf_ident *b)
{
	return a->class == b->class && a->data == b->data && a->machine == b->machine;
}

bool ldso__same_kind(const char *path, const char *ref)
{
	struct elf_ident a, b;

	return !ident_of(path, &a) && !ident_of(ref, &b) && same_kind(&a, &b);
}

static char *dirname_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* ---- the dynamic section ---- */

static void dyn_info__free(struct dyn_info *d)
{
	size_t i;

	for (i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->interp);
	free(d->rpath);
	free(d->runpath);
	memset(d, 0, sizeof(*d));
}

static int take_dyn(struct dyn_info *d, int64_t tag, const char *s)
{
	char **slot, **v;

	if (tag == DT_RPATH || tag == DT_RUNPATH) {
		slot = tag == DT_RPATH ? &d->rpath : &d->runpath;
		free(*slot);
		*slot = strdup(s);
		return *slot ? 0 : -ENOMEM;
	}
	v = reallocarray(d->needed, d->nneeded + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->needed = v;
	v[d->nneeded] = strdup(s);
	if (!v[d->nneeded])
		return -ENOMEM;
	d->nneeded++;
	return 0;
}

static int read_dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct dyn_info *d)
{
	size_t i, n, entsize = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *s;
	GElf_Dyn dyn;
	int err = 0;

	if (!data || !entsize)
		return -ENOEXEC;
	n = data->d_size / entsize;
	for (i = 0; i < n && i <= INT_MAX && !err; i++) {
		if (!gelf_getdyn(data, (int)i, &dyn))
			return -ENOEXEC;
		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
			continue;
		/* elf_strptr checks the string ends inside the table. */
		s = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
		if (s && *s)
			err = take_dyn(d, dyn.d_tag, s);
	}
	return err;
}

static int read_interp(Elf *elf, struct dyn_info *d)
{
	size_t i, n;
	Elf_Data *data;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n && i <= INT_MAX; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_INTERP)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (!data || !data->d_size || !memchr(data->d_buf, '\0', data->d_size))
			return -ENOEXEC;
		d->interp = strdup(data->d_buf);
		return d->interp ? 0 : -ENOMEM;
	}
	return 0;
}

static int read_dyn_elf(Elf *elf, struct dyn_info *d)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	err = read_interp(elf, d);
	while (!err && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type == SHT_DYNAMIC)
			err = read_dynamic(elf, scn, &sh, d);
	}
	return err;
}

/* Reads PT_INTERP, DT_NEEDED, DT_RPATH and DT_RUNPATH of an ELF file. */
static int dyn_info__read(const char *path, struct dyn_info *d)
{
	int fd, err;
	Elf *elf;

	memset(d, 0, sizeof(*d));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf ? read_dyn_elf(elf, d) : -ENOEXEC;
	elf_end(elf);
	close(fd);
	if (err)
		dyn_info__free(d);
	return err;
}

/* ---- where ld.so looks ---- */

static const char *dst_value(const char *name, const char *origin)
{
	const char *platform;

	if (!strcmp(name, "ORIGIN"))
		return origin;
	if (!strcmp(name, "LIB"))
		return "lib/" MULTIARCH;
	if (strcmp(name, "PLATFORM"))
		return NULL;
	platform = (const char *)getauxval(AT_PLATFORM);
	return platform ? platform : "";
}

/* The length of the $NAME or ${NAME} at p (*p == '$'), NAME into name; 0
 * when there is none. */
static size_t dst_token(const char *p, const char *end, char *name, size_t cap)
{
	bool brace = p + 1 < end && p[1] == '{';
	const char *s = p + 1 + brace, *e = s;

	while (e < end && (isalnum((unsigned char)*e) || *e == '_'))
		e++;
	if (e == s || (size_t)(e - s) >= cap || (brace && (e == end || *e != '}')))
		return 0;
	memcpy(name, s, (size_t)(e - s));
	name[e - s] = '\0';
	return (size_t)(e - p) + brace;
}

/* One search directory with ld.so's dynamic string tokens ($ORIGIN, $LIB,
 * $PLATFORM) replaced; "." when empty. */
static int expand_dir(const char *p, const char *end, const char *origin, struct strbuf *out)
{
	const char *val;
	char name[16];
	size_t n;
	int err = 0;

	strbuf__reset(out);
	while (p < end && !err) {
		n = *p == '$' ? dst_token(p, end, name, sizeof(name)) : 0;
		val = n && origin ? dst_value(name, origin) : NULL;
		if (val) {
			err = strbuf__add(out, val, strlen(val));
			p += n;
		} else {
			err = strbuf__addc(out, *p++);
		}
	}
	return err ? err : out->len ? 0 : strbuf__addc(out, '.');
}

/* cand when it is an ELF file ld.so would take: 0 and its canonical path,
 * -ENOENT, or -ENOMEM. */
static int try_lib(const char *cand, const struct elf_ident *want, char **found)
{
	struct elf_ident id;

	if (ident_of(cand, &id) || !same_kind(&id, want))
		return -ENOENT;
	*found = realpath(cand, NULL);
	if (*found)
		return 0;
	return errno == ENOMEM ? -ENOMEM : -ENOENT;
}

/* name in the first directory of a ':'-separated list that has it. */
static int search_list(const char *list, const char *origin, const char *name,
		       const struct elf_ident *want, char **found)
{
	struct strbuf dir = { 0 };
	const char *p = list, *end;
	int err = -ENOENT;

	while (p && err == -ENOENT) {
		end = strchrnul(p, ':');
		err = expand_dir(p, end, origin, &dir);
		if (!err)
			err = strbuf__addf(&dir, "/%s", name);
		if (!err)
			err = try_lib(dir.s, want, found);
		p = *end ? end + 1 : NULL;
	}
	strbuf__free(&dir);
	return err;
}

/* Where ld.so finds the library name that the object req (in the directory
 * origin) needs. ld.so also tries the RPATHs of every object in the chain
 * that loaded req; only req's and the executable's are tried here. */
static int find_library(const struct search *s, const struct dyn_info *req, const char *origin,
			const char *name, char **found)
{
	int err = -ENOENT;

	if (strchr(name, '/'))
		return try_lib(name, &s->want, found);
	if (!req->runpath) {
		err = search_list(req->rpath, origin, name, &s->want, found);
		if (err == -ENOENT && !s->exe.runpath)
			err = search_list(s->exe.rpath, s->exe_origin, name, &s->want, found);
	}
	if (err == -ENOENT)
		err = search_list(s->env, s->exe_origin, name, &s->want, found);
	if (err == -ENOENT)
		err = search_list(req->runpath, origin, name, &s->want, found);
	if (err == -ENOENT)
		err = search_list(s->conf.s, NULL, name, &s->want, found);
	if (err == -ENOENT)
		err = search_list(default_dirs, NULL, name, &s->want, found);
	return err;
}

/* ---- /etc/ld.so.conf ---- */

static int conf_dirs(const char *path, int depth, struct strbuf *dirs);

/* An include pattern: relative ones are relative to the including file. */
static char *include_pattern(const char *conf, const char *tok)
{
	char *dir, *pat = NULL;

	if (*tok == '/')
		return strdup(tok);
	dir = dirname_of(conf);
	if (dir && asprintf(&pat, "%s/%s", dir, tok) < 0)
		pat = NULL;
	free(dir);
	return pat;
}

/* "include PATTERN..." (save: the rest of the line, from strtok_r). */
static int conf_include(const char *conf, char *save, int depth, struct strbuf *dirs)
{
	char *tok, *pat;
	glob_t g;
	size_t i;
	int err = 0;

	while (!err && (tok = strtok_r(NULL, " \t\n", &save))) {
		pat = include_pattern(conf, tok);
		if (!pat)
			return -ENOMEM;
		if (!glob(pat, 0, NULL, &g)) {
			for (i = 0; i < g.gl_pathc && !err; i++)
				err = conf_dirs(g.gl_pathv[i], depth + 1, dirs);
			globfree(&g);
		}
		free(pat);
	}
	return err;
}

static int conf_line(const char *conf, char *line, int depth, struct strbuf *dirs)
{
	char *save, *tok;
	int err = 0;

	line[strcspn(line, "#")] = '\0';
	tok = strtok_r(line, " \t\n", &save);
	if (tok && !strcmp(tok, "include"))
		return conf_include(conf, save, depth, dirs);
	if (tok && !strcmp(tok, "hwcap"))
		return 0;
	/* "," or ":" may separate directories too; old entries are "DIR=TYPE". */
	for (; tok && !err; tok = strtok_r(NULL, " \t\n,:", &save)) {
		tok[strcspn(tok, "=,:")] = '\0';
		if (*tok)
			err = strbuf__addf(dirs, "%s%s", dirs->len ? ":" : "", tok);
	}
	return err;
}

/* Appends the directories an ld.so.conf file names, and those of the files
 * it includes, ':'-separated. A missing file adds nothing. */
static int conf_dirs(const char *path, int depth, struct strbuf *dirs)
{
	char *line = NULL;
	size_t cap = 0;
	int err = 0;
	FILE *f;

	if (depth > CONF_DEPTH_MAX)
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && getline(&line, &cap, f) > 0)
		err = conf_line(path, line, depth, dirs);
	free(line);
	fclose(f);
	return err;
}

/* ---- the closure ---- */

static void search__free(struct search *s)
{
	dyn_info__free(&s->exe);
	free(s->exe_origin);
	strbuf__free(&s->conf);
}

static int search__init(struct search *s, const struct target_binary *exe)
{
	int err;

	/* ld.so ignores an empty LD_LIBRARY_PATH. */
	s->env = getenv("LD_LIBRARY_PATH");
	if (s->env && !*s->env)
		s->env = NULL;
	err = ident_of(exe->open_path, &s->want);
	if (!err)
		err = dyn_info__read(exe->open_path, &s->exe);
	if (!err)
		err = conf_dirs(LD_SO_CONF, 0, &s->conf);
	if (!err && !(s->exe_origin = dirname_of(exe->path)))
		err = -ENOMEM;
	return err;
}

/* Appends the library name that req (in origin) needs; one ld.so cannot
 * find is left out. */
static int add_library(struct binaries *b, const struct search *s, const struct dyn_info *req,
		       const char *origin, const char *name)
{
	char *found;
	int err = find_library(s, req, origin, name, &found);

	if (err)
		return err == -ENOENT ? 0 : err;
	err = binaries__add_path(b, found);
	free(found);
	return err == -ENOMEM ? err : 0;
}

/* LD_PRELOAD (spaces or colons between names) and /etc/ld.so.preload. */
static int add_preload_list(struct binaries *b, const struct search *s, const char *list)
{
	char *copy, *tok, *save;
	int err = 0;

	if (!list)
		return 0;
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, " :\t\n", &save); tok && !err;
	     tok = strtok_r(NULL, " :\t\n", &save))
		err = add_library(b, s, &s->exe, s->exe_origin, tok);
	free(copy);
	return err;
}

static int add_preloads(struct binaries *b, const struct search *s)
{
	char *text = NULL;
	size_t cap = 0;
	FILE *f;
	int err = add_preload_list(b, s, getenv("LD_PRELOAD"));

	if (err || !(f = fopen(LD_SO_PRELOAD, "re")))
		return err;
	/* The whole file: it holds no NUL byte. */
	if (getdelim(&text, &cap, '\0', f) > 0)
		err = add_preload_list(b, s, text);
	free(text);
	fclose(f);
	return err;
}

/* Appends what the i-th binary needs; an unreadable one needs nothing. */
static int add_needed_of(struct binaries *b, size_t i, const struct search *s)
{
	struct dyn_info d;
	char *origin;
	size_t k;
	int err = dyn_info__read(b->v[i].open_path, &d);

	if (err)
		return err == -ENOMEM ? err : 0;
	origin = dirname_of(b->v[i].path);
	err = origin ? 0 : -ENOMEM;
	for (k = 0; k < d.nneeded && !err; k++)
		err = add_library(b, s, &d, origin, d.needed[k]);
	free(origin);
	dyn_info__free(&d);
	return err;
}

int ldso__add_closure(struct binaries *b)
{
	struct search s = { 0 };
	size_t i;
	int err = search__init(&s, &b->v[0]);

	if (!err)
		err = add_preloads(b, &s);
	/* Breadth-first: b->n grows while the loop runs. */
	for (i = 0; i < b->n && !err; i++)
		err = add_needed_of(b, i, &s);
	if (!err && s.exe.interp) {
		err = binaries__add_path(b, s.exe.interp);
		err = err == -ENOMEM ? err : 0;
	}
	search__free(&s);
	return err;
}

int ldso__lib_dirs(struct strbuf *dirs)
{
	int err = conf_dirs(LD_SO_CONF, 0, dirs);

	return err ? err : strbuf__addf(dirs, "%s%s", dirs->len ? ":" : "", default_dirs);
}
