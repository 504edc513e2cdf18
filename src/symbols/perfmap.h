/* JIT symbols from the perf map a JIT compiler writes (V8 with
 * --perf-basic-prof, the JVM's perf-map-agent, .NET, LuaJIT, Python 3.12's
 * trampolines): /tmp/perf-PID.map, one "START SIZE NAME" line per region of
 * generated code, START and SIZE in hex, as perf reads it
 * (tools/perf/Documentation/jit-interface.txt). The file belongs to the
 * profiled user: it is read with care, parsed defensively, and bounded. */
#ifndef FLAMEBPF_PERFMAP_H
#define FLAMEBPF_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* A JVM's map reaches hundreds of MB: the first GiB of a file is read. */
#define PERFMAP_MAX_BYTES   (1UL << 30)
#define PERFMAP_MAX_ENTRIES (1UL << 23)
#define PERFMAP_MAX_NAME    1024 /* longer names are cut, at a UTF-8 boundary */

struct perfmap;

/* Parses a map's text (not NUL-terminated; only its first PERFMAP_MAX_BYTES).
 * Malformed lines and empty regions are skipped; "0x" before the numbers is
 * allowed. Where regions overlap, the later line wins: a JIT reuses the
 * memory of code it freed. Returns 0 or -ENOMEM. */
int perfmap__parse(const char *text, size_t len, struct perfmap **out);

/* A map built from regions rather than parsed (another JIT's own record
 * of its code, beam_jit.h): perfmap__new, perfmap__add for each region
 * in the order a map file would list them (the later wins where they
 * overlap), perfmap__seal before the first lookup. name is copied, cut as
 * a line's would be. Each returns 0 or -ENOMEM (NULL for perfmap__new). */
struct perfmap *perfmap__new(void);
int perfmap__add(struct perfmap *m, uint64_t start, uint64_t size, const char *name,
		 size_t name_len);
int perfmap__seal(struct perfmap *m);

/* Opens the map at path (absolute; from the root proc_root__get() gave, or
 * as we see it when 0) to read it now or later, when the process may have
 * deleted it. Only a regular file owned by root or by uid is taken, never
 * through a symbolic link, and not one last written before since (a
 * CLOCK_REALTIME second; 0: any): the map of an earlier process that had
 * the same pid. Returns an fd, -ENOENT, -ELOOP (a link), -EPERM (another
 * owner), -EINVAL (not a regular file), -ESTALE (older), or -errno. */
int perfmap__open(int root, const char *path, uid_t uid, time_t since);

/* Reads the map an fd of perfmap__open holds, from its start, at most
 * PERFMAP_MAX_BYTES and then only whole lines. Returns 0 or -errno. */
int perfmap__read_fd(int fd, struct perfmap **out);

/* perfmap__open, then perfmap__read_fd. */
int perfmap__read(int root, const char *path, uid_t uid, time_t since, struct perfmap **out);

/* The region holding addr: its name and addr's offset in it, or NULL. The
 * name lives as long as m. */
const char *perfmap__lookup(const struct perfmap *m, uint64_t addr, uint64_t *off);

/* How many lines were taken. */
size_t perfmap__count(const struct perfmap *m);

void perfmap__free(struct perfmap *m);

#endif
