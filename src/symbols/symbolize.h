/* Addresses to profile frames: user addresses through the process's
 * mappings and the binaries' symbol tables (with their separate debug files,
 * see debuginfo.h), JIT code through the process's perf map (perfmap.h),
 * kernel ones through kallsyms. Each unique address is resolved once. */
#ifndef FLAMEBPF_SYMBOLIZE_H
#define FLAMEBPF_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/profile.h"
#include "procs.h"
#include "srcline.h"

struct symbolizer;

/* Frames one address can give: its function and those inlined there. */
#define SYMBOLIZE_MAX_FRAMES (1 + SRCLINE_MAX_INLINE)

struct symbolizer_opts {
	bool no_demangle;	/* C++ and Rust names as the symbol table has them */
	bool inline_frames;	/* --inline: functions inlined at an address as frames */
	bool file_line;		/* --file-line: " (FILE:LINE)" after names, from DWARF */
	const char *debug_root; /* separate debug files; NULL: DEBUGINFO_ROOT */
};

/* Uses (does not own) the profile for frames and the process table; o's
 * strings must outlive the symbolizer. Returns NULL and sets errno on
 * failure. */
struct symbolizer *symbolizer__new_opts(struct profile *p, struct procs *ps,
					const struct symbolizer_opts *o);

/* The same with the options of symbolizer__set_defaults. */
struct symbolizer *symbolizer__new(struct profile *p, struct procs *ps);

struct symcache;

/* The same with the options of symbolizer__set_defaults, and the binaries
 * the source read already (symbolizer__preload), which it keeps owning. */
struct symbolizer *symbolizer__new_with(struct profile *p, struct procs *ps, struct symcache *bins);

/* Lends ks (the caller keeps and frees it) for kernel names, instead of
 * reading /proc/kallsyms at the first kernel address: --continuous loads
 * it once for many intervals. No effect once names were looked up. */
struct kallsyms;
void symbolizer__lend_kallsyms(struct symbolizer *s, struct kallsyms *ks);

/* A cache of binaries for symbolizer__preload, with the default options. */
struct symcache *symbolizer__new_cache(void);

/* Reads the symbols of pid's binaries now, while it runs, when its root is
 * not ours (procs__root): the files of a container's own mounts are gone
 * with its last process, before the capture ends. pid was just snapshot. */
void symbolizer__preload(struct symcache *bins, struct procs *ps, pid_t pid);

/* The options of every later symbolizer__new: the command line sets them
 * once, and the sources make their symbolizers deep inside. */
void symbolizer__set_defaults(const struct symbolizer_opts *o);

/* The frame for ip. A return address (every frame but the leaf) is looked
 * up one byte back, inside the call instruction, so that a call at the very
 * end of a function is not credited to the next one. Returns 0 or -ENOMEM. */
int symbolizer__user(struct symbolizer *s, pid_t pid, uint64_t ip, bool is_return, uint32_t *id);

/* The same with --inline: the frames for ip, outermost first, at most max
 * (SYMBOLIZE_MAX_FRAMES is enough). Returns how many (>= 1 when max > 0)
 * or -ENOMEM. */
int symbolizer__user_frames(struct symbolizer *s, pid_t pid, uint64_t ip, bool is_return,
			    uint32_t *ids, size_t max);
int symbolizer__kernel(struct symbolizer *s, uint64_t ip, bool is_return, uint32_t *id);

/* The name of the kernel function holding ip (a return address if
 * is_return), or NULL when unknown. Valid until s is freed. */
const char *symbolizer__kernel_name(struct symbolizer *s, uint64_t ip, bool is_return);

/* The kernel addresses that will be symbolized (n of them, in any order,
 * repeats allowed): /proc/kallsyms is then read for their symbols alone,
 * not kept whole (kallsyms__load_for). An address outside them read later
 * makes it read the whole file after all. No effect once names were looked
 * up or kallsyms lent. Returns 0 or -ENOMEM. */
int symbolizer__kernel_addrs(struct symbolizer *s, const uint64_t *addrs, size_t n);

/* Why kernel names are missing, or 0. */
int symbolizer__kernel_err(const struct symbolizer *s);

void symbolizer__free(struct symbolizer *s);

#endif
