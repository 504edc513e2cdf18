/* The kernel's vDSO as this process maps it: the same image in every
 * 64-bit process of the running kernel, so its symbols name the [vdso]
 * frames of any of them (__vdso_clock_gettime), as perf names them from
 * the copy it keeps. */
#ifndef FLAMEBPF_VDSO_IMAGE_H
#define FLAMEBPF_VDSO_IMAGE_H

#include <stdint.h>

/* The length of our own vDSO image (its mapping's), into *size: a
 * process's [vdso] of another length is not the same image (a 32-bit
 * one's). Returns 0, -ENOENT when the process has none, or -errno. */
int vdso_image__size(uint64_t *size);

/* A memfd holding a copy of our own vDSO image, its length in *size.
 * Returns the fd, -ENOENT when the process has none (AT_SYSINFO_EHDR), or
 * -errno. */
int vdso_image__open(uint64_t *size);

#endif
