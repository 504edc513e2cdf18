// SPDX-License-Identifier: GPL-2.0
#include "ifunc_self.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbols/proc_maps.h"

struct ifunc_self {
	void *handle;	       /* from dlopen(RTLD_NOLOAD): never a new load */
	struct proc_maps maps; /* our executable mappings of the file */
};

/* By the mapping, not by path: a file replaced since we loaded it (a
 * package upgrade) has a new inode, and our copy is not its copy. */
static bool same_file(const struct map_entry *m, const struct stat *st)
{
	return m->inode == st->st_ino && m->dev_major == major(st->st_dev) &&
	       m->dev_minor == minor(st->st_dev);
}

static void keep_file(struct proc_maps *m, const struct stat *st)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++) {
		if (same_file(&m->v[i], st))
			m->v[n++] = m->v[i];
		else
			free(m->v[i].path);
	}
	m->n = n;
}

struct find_obj {
	uint64_t addr;
	char *name; /* of the loaded object that maps addr */
	bool nomem;
};

static int find_obj_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_obj *f = arg;

	(void)size;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || f->addr < start || f->addr - start >= ph->p_memsz)
			continue;
		/* the main program ("") is not a library to ask */
		if (info->dlpi_name && *info->dlpi_name) {
			f->name = strdup(info->dlpi_name);
			f->nomem = !f->name;
		}
		return 1;
	}
	return 0;
}

static void self_free(struct ifunc_self *s)
{
	if (s->handle)
		dlclose(s->handle);
	proc_maps__free(&s->maps);
	free(s);
}

int ifunc_self__open(const struct stat *st, struct ifunc_self **out)
{
	struct ifunc_self *s = calloc(1, sizeof(*s));
	struct find_obj f = { 0 };
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	err = proc_maps__read(getpid(), &s->maps);
	if (!err)
		keep_file(&s->maps, st);
	if (!err && s->maps.n) {
		f.addr = s->maps.v[0].start;
		dl_iterate_phdr(find_obj_cb, &f);
	}
	/* already loaded by that name: RTLD_NOLOAD finds it, never loads it */
	if (f.name)
		s->handle = dlopen(f.name, RTLD_NOLOAD | RTLD_LAZY);
	free(f.name);
	if (err == -ENOMEM || f.nomem || !s->handle) {
		self_free(s);
		return err == -ENOMEM || f.nomem ? -ENOMEM : 0;
	}
	*out = s;
	return 0;
}

/* The name of the file our dynamic linker maps at a. */
static int other_file(void *a, char **elsewhere)
{
	Dl_info info;

	*elsewhere = strdup(dladdr(a, &info) && info.dli_fname && *info.dli_fname ? info.dli_fname
										  : "another file");
	return *elsewhere ? -EXDEV : -ENOMEM;
}

int ifunc_self__resolve(const struct ifunc_self *s, const char *sym, uint64_t *file_off,
			char **elsewhere)
{
	const char *at = strchr(sym, '@');
	const struct map_entry *m;
	char *name;
	void *a;

	if (!at) {
		a = dlsym(s->handle, sym);
	} else {
		name = strndup(sym, (size_t)(at - sym));
		if (!name)
			return -ENOMEM;
		a = dlvsym(s->handle, name, at + 1);
		free(name);
	}
	if (!a)
		return -ENOENT;
	m = proc_maps__find(&s->maps, (uint64_t)(uintptr_t)a);
	if (!m)
		return other_file(a, elsewhere);
	*file_off = (uint64_t)(uintptr_t)a - m->start + m->offset;
	return 0;
}

void ifunc_self__free(struct ifunc_self *s)
{
	if (s)
		self_free(s);
}
