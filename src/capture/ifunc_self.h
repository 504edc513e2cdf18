/* What an IFUNC resolves to on this machine, for a file that flamebpf
 * itself has loaded (libc, libm): our own dynamic linker ran the resolver
 * when it loaded the file, and dlsym() gives its choice on this CPU. No
 * file is ever loaded for this: only the very copy we run already (the same
 * device and inode as mapped in this process) is asked. */
#ifndef FLAMEBPF_IFUNC_SELF_H
#define FLAMEBPF_IFUNC_SELF_H

#include <stdint.h>
#include <sys/stat.h>

struct ifunc_self;

/* For the file st describes: sets *out to NULL when this process has not
 * loaded it (or as its main program). Returns 0 or -ENOMEM. */
int ifunc_self__open(const struct stat *st, struct ifunc_self **out);

/* The file offset of the code that symbol sym ("name", or "name@VERSION"
 * for a non-default version) stands for in our copy: for an IFUNC, the
 * implementation its resolver chose. Returns 0; -ENOENT when our copy does
 * not export it; -EXDEV when that code is in another file (libc's time()
 * runs the vDSO's), whose name is then in *elsewhere (malloc'd); -ENOMEM. */
int ifunc_self__resolve(const struct ifunc_self *s, const char *sym, uint64_t *file_off,
			char **elsewhere);

void ifunc_self__free(struct ifunc_self *s);

#endif
