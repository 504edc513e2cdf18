/* What the dynamic loader (ld.so) maps for an executable, and where it looks
 * for libraries: the files a command will map before it runs. */
#ifndef FLAMEBPF_LDSO_H
#define FLAMEBPF_LDSO_H

#include <stdbool.h>

#include "util/strbuf.h"
#include "binary_list.h"

/* Appends to b, whose first entry is an executable, the libraries ld.so
 * loads for it: LD_PRELOAD, /etc/ld.so.preload, then the DT_NEEDED closure
 * breadth-first, each found as ld.so finds it (DT_RPATH of the object and of
 * the executable, LD_LIBRARY_PATH, DT_RUNPATH, with $ORIGIN, $LIB and
 * $PLATFORM; /etc/ld.so.conf's directories; the default ones), then the
 * program interpreter (PT_INTERP). A library ld.so would not find, or that
 * cannot be read, is left out. Returns 0, or -errno when the executable
 * cannot be read (-ENOMEM). */
int ldso__add_closure(struct binaries *b);

/* Appends ld.so's library directories, /etc/ld.so.conf's then the default
 * ones, to dirs, ':'-separated. Returns 0 or -ENOMEM. */
int ldso__lib_dirs(struct strbuf *dirs);

/* Whether path is an ELF file of ref's kind (class, byte order, machine),
 * one that ld.so would load into ref's process. */
bool ldso__same_kind(const char *path, const char *ref);

#endif
