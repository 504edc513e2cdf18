/* A binary's USDT probes (sys/sdt.h), where to put a uprobe on each and
 * its semaphore (the counter the kernel raises while a probe is traced, so
 * that the program prepares a probe's arguments only then). */
#ifndef FLAMEBPF_USDT_H
#define FLAMEBPF_USDT_H

#include <stddef.h>
#include <stdint.h>

struct usdt_probe {
	char *provider, *name; /* "python", "gc__start" */
	char *args;	       /* the argument spec: "-4@112(%rsp)", "" for none */
	uint64_t addr;	       /* link-time address, moved with .stapsdt.base (prelink) */
	uint64_t offset;       /* in the file: where its uprobe goes */
	uint64_t sema_addr;    /* 0: no semaphore */
	uint64_t sema_offset;  /* in the file: the uprobe's ref_ctr_offset */
};

struct usdt_probes {
	struct usdt_probe *v;
	size_t n, cap;
};

/* Appends the probes of the ELF file at path to out, in the order of its
 * notes. Returns 0 (none is not an error), -ENOEXEC when it is not ELF or
 * its notes are malformed, -ENOMEM, or -errno from open. */
int usdt__read(const char *path, struct usdt_probes *out);

void usdt__free(struct usdt_probes *p);

#endif
