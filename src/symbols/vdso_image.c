// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "proc_maps.h"
#include "vdso_image.h"

/* The length of our [vdso] mapping, which starts at base. */
static int mapping_length(uint64_t base, uint64_t *len)
{
	struct proc_maps maps = { 0 };
	int err = proc_maps__read(getpid(), &maps);

	if (err)
		return err;
	err = -ENOENT;
	for (size_t i = 0; i < maps.n; i++) {
		if (maps.v[i].start == base && !strcmp(maps.v[i].path, "[vdso]")) {
			*len = maps.v[i].end - maps.v[i].start;
			err = 0;
			break;
		}
	}
	proc_maps__free(&maps);
	return err;
}

int vdso_image__size(uint64_t *size)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR);

	return base ? mapping_length(base, size) : -ENOENT;
}

int vdso_image__open(uint64_t *size)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), len = 0;
	int fd, err;

	if (!base)
		return -ENOENT;
	err = mapping_length(base, &len);
	if (err)
		return err;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* from our own mapping, readable and as long as the kernel made it */
	if (write(fd, (const void *)(uintptr_t)base, len) != (ssize_t)len) {
		err = errno ? -errno : -EIO;
		close(fd);
		return err;
	}
	*size = len;
	return fd;
}
