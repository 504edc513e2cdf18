// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "symbols/elf_symtab.h"
#include "symbols/mapped_file.h"
#include "symbols/procs.h"
#include "symbols/unwind_compact.h"
#include "symbols/unwind_table.h"
#include "symbols/vdso_image.h"
#include "util/array.h"
#include "util/hashmap.h"
#include "map_slot.h"
#include "stack_walkers.h"
#include "unwinder.h"

/* Rows of a table above which the heap is trimmed once it is built: what
 * the build used (40 bytes an FDE) is freed amid the heap (libc has 28k
 * rows and 3k FDEs, libLLVM 0.9M and 95k). */
#define UNWINDER_TRIM_ROWS (1u << 16)

/* A binary, by file: where its rows are in the row array. */
struct unwinder_file {
	struct unwind_table *t; /* rows dropped once copied; NULL: no table */
	uint64_t base;		/* its first row's pc: struct unwind_crow.pc is from it */
	uint32_t first, nrows;
	/* the inode last put in the BPF side's unwind_files: each process that
	 * maps the file would write it again (a container's copy, by build-id,
	 * is another) */
	struct unwind_file_key indexed;
	bool go; /* a Go program's (stack_walkers.h): no table, and rbp may go below */
};

/* A file's entry in the BPF unwind_files map. */
struct unwind_file_entry {
	struct unwind_file_key key;
	struct unwind_file val;
};

/* A JVM's interpreter, [lo, hi) (struct unwind_proc's jvm_lo, jvm_hi). */
struct jvm_code {
	uint64_t lo, hi;
};

struct unwinder {
	struct map_slot rows; /* the BPF array of chunks (outer_fd), chunk 0 put in place */
	int *chunks;	      /* their fds, each mapped only while rows are copied in */
	uint32_t nchunks;
	uint32_t max_rows, used;
	uint32_t gen; /* the last unwind_proc.gen given */
	int procs_fd;
	int files_fd; /* the BPF unwind_files map, once ready; until then: pending */
	int below_fd; /* the BPF unwind_fp_below map, once ready */
	struct unwind_file_entry *pending;
	size_t npending, pending_cap;
	struct unwinder_file *files;
	size_t nfiles, files_cap;
	struct hashmap by_file;	    /* mapped_file__key() -> index in files */
	struct hashmap by_build_id; /* build_id_key() -> index in files */
	struct unwind_proc *scratch;
	char *no_room;	  /* the first binary that did not fit */
	pthread_t warmer; /* warm(), until unwinder__ready() */
	bool warming;
	int warm_err;
	struct unwinder_stats st;
	struct hashmap jvm_of; /* pid -> 1 + index in jvms (unwinder__set_jvm) */
	struct jvm_code *jvms;
	size_t njvms, jvms_cap;
	uint64_t vdso_size; /* our vDSO's (vdso_image.h); 0: none */
};

/* by_file's key of the kernel's vDSO, which no file backs */
#define VDSO_KEY 0x7664736f2d696d67ULL

/* A [vdso] mapping of the image we map too: its table is built from ours. */
static bool is_vdso(const struct unwinder *u, const struct map_entry *m)
{
	return u->vdso_size && !strcmp(m->path, "[vdso]") && m->end - m->start == u->vdso_size;
}

static uint64_t file_key(const struct unwinder *u, const struct map_entry *m)
{
	return is_vdso(u, m) ? VDSO_KEY : mapped_file__key(m);
}

static int make_chunk(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_chunk", sizeof(__u32),
				sizeof(struct unwind_crow), UNWIND_CHUNK_ROWS, &opts);

	return fd < 0 ? -errno : fd;
}

/* Chunk c of the row array, made and put in place if it is not there yet.
 * Returns its fd or -errno. */
static int chunk_fd(struct unwinder *u, uint32_t c)
{
	int fd;

	if (c < u->nchunks)
		return u->chunks[c];
	fd = make_chunk();
	if (fd < 0)
		return fd;
	if (bpf_map_update_elem(u->rows.outer_fd, &c, &fd, BPF_ANY)) {
		int err = -errno;

		close(fd);
		return err;
	}
	u->chunks[u->nchunks++] = fd;
	return fd;
}

/* A table's compact rows on their way into the row array, as they are
 * built: only the part of the chunk they go in is mapped, from their first
 * page on. The kernel maps every page of a BPF array at mmap() time, so a
 * chunk mapped for the run would count in our RSS. */
struct placing {
	struct unwinder *u;
	struct unwind_compact c;
	uint32_t first, n; /* where the table goes in the row array, rows written */
	uint32_t chunk;	   /* the chunk mapped */
	uint32_t from;	   /* its first row mapped */
	char *map;	   /* NULL: none */
	size_t len;
	int err; /* what stopped the writing: the table does not fit */
};

static void unmap_window(struct placing *pl)
{
	if (pl->map)
		munmap(pl->map, pl->len);
	pl->map = NULL;
}

/* Maps chunk c of the row array from the page of its row k to its end. */
static int map_window(struct placing *pl, uint32_t c, uint32_t k)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t off = ((size_t)k * sizeof(struct unwind_crow)) & ~(page - 1);
	size_t len = UNWIND_CHUNK_ROWS * sizeof(struct unwind_crow) - off;
	int fd = chunk_fd(pl->u, c);
	char *map;

	if (fd < 0)
		return fd;
	unmap_window(pl);
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	if (map == MAP_FAILED)
		return -errno;
	pl->map = map;
	pl->len = len;
	pl->chunk = c;
	pl->from = (uint32_t)(off / sizeof(struct unwind_crow));
	return 0;
}

/* Writes the table's next row. Returns 0, -ENOSPC when the row array is
 * full, or -errno when a chunk cannot be made or mapped. */
static int put_row(struct placing *pl, const struct unwind_crow *row)
{
	uint32_t at = pl->first + pl->n;
	uint32_t c = at >> UNWIND_CHUNK_BITS, k = at & (UNWIND_CHUNK_ROWS - 1);
	int err;

	if (at >= pl->u->max_rows)
		return -ENOSPC;
	if (!pl->map || c != pl->chunk) {
		err = map_window(pl, c, k);
		if (err)
			return err;
	}
	((struct unwind_crow *)pl->map)[k - pl->from] = *row;
	pl->n++;
	return 0;
}

/* struct unwind_sink's: the rows compacted into the row array. */
static int put_rows(void *ctx, const struct unwind_row *rows, size_t n)
{
	struct placing *pl = ctx;
	struct unwind_crow row;
	int rc = 0;

	for (size_t i = 0; i < n && rc >= 0; i++) {
		rc = unwind_compact__push(&pl->c, &rows[i], &row);
		if (rc > 0)
			rc = put_row(pl, &row);
	}
	if (rc < 0)
		pl->err = rc;
	return rc < 0 ? rc : 0;
}

/* Lets go of the chunks past the rows in use, made for a table that failed
 * part way. */
static void drop_chunks(struct unwinder *u)
{
	uint32_t keep = u->used ? (u->used - 1) / UNWIND_CHUNK_ROWS + 1 : 1;

	while (u->nchunks > keep) {
		uint32_t c = --u->nchunks;

		bpf_map_delete_elem(u->rows.outer_fd, &c);
		close(u->chunks[c]);
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The table pl placed is f's. */
static void placed(struct unwinder *u, struct unwinder_file *f, const struct placing *pl)
{
	f->base = pl->c.base;
	f->first = pl->first;
	f->nrows = pl->n;
	u->used += pl->n;
	u->st.files++;
	u->st.rows_refused += pl->c.refused;
	if (pl->n >= UNWINDER_TRIM_ROWS)
		malloc_trim(0);
}

/* f's table did not fit: a chunk that cannot be made or mapped (no memory)
 * counts as no room; so does a table wider than a row's 32-bit pc. */
static void no_room(struct unwinder *u, struct unwinder_file *f, const char *path)
{
	if (!u->st.files_no_room++)
		u->no_room = strdup(path);
	unwind_table__free(f->t);
	f->t = NULL;
}

/* f's table from the binary open on fd (or none when fd < 0), its rows
 * compacted into the row array as they are built: a big library's (libLLVM:
 * 0.9M rows) are never all in our memory. */
static void build_table(struct unwinder *u, struct unwinder_file *f, int fd, const char *path)
{
	struct placing pl = { .u = u, .first = u->used };
	struct unwind_sink sink = { put_rows, &pl };
	struct unwind_crow row;
	double t0 = now_ms();
	int err = fd < 0 ? fd : unwind_table__build_to(fd, &sink, &f->t);

	if (!err && unwind_compact__flush(&pl.c, &row))
		err = pl.err = put_row(&pl, &row);
	unmap_window(&pl);
	u->st.build_ms += now_ms() - t0;
	if (!err) {
		placed(u, f, &pl);
		return;
	}
	if (pl.err)
		no_room(u, f, path);
	else
		u->st.files_without++;
	drop_chunks(u);
}

/* A key for the build-id of the binary open on fd, 0 when it has none. */
static uint64_t build_id_key(int fd)
{
	uint8_t id[64];
	size_t len;

	if (fd < 0 || elf_symtab__read_build_id(fd, id, sizeof(id), &len) || !len)
		return 0;
	return hash_bytes(id, len, 0) | 1;
}

/* A new entry for file key (and build-id key bid, if not 0), NULL when out
 * of memory. The entry exists before either map names it: a second map
 * that fails must not leave the first naming an index past nfiles. */
static struct unwinder_file *add_file(struct unwinder *u, uint64_t key, uint64_t bid)
{
	struct unwinder_file *f;

	if (array__reserve((void **)&u->files, &u->files_cap, u->nfiles + 1, sizeof(*f)))
		return NULL;
	f = &u->files[u->nfiles];
	memset(f, 0, sizeof(*f));
	u->nfiles++;
	if (hashmap__set(&u->by_file, key, u->nfiles - 1) ||
	    (bid && hashmap__set(&u->by_build_id, bid, u->nfiles - 1)))
		return NULL;
	return f;
}

/* f, whose table m maps, in the BPF side's map of files by inode: a pc in
 * a mapping of it made since its process's entry finds its rows. Until the
 * map is there (the C library's table, built while the programs are
 * verified), kept for unwinder__ready(). A full map only costs frame
 * pointers in such code. */
static void index_file(struct unwinder *u, struct unwinder_file *f, const struct map_entry *m)
{
	struct unwind_file_entry e = {
		.key = { .ino = m->inode, .dev = m->dev_major << 20 | m->dev_minor },
		.val = { .off = m->offset, .first = f->first, .nrows = f->nrows },
	};
	uint64_t bias;

	if (!f->t || !f->nrows || m->perms[2] != 'x' ||
	    !memcmp(&f->indexed, &e.key, sizeof(e.key)) ||
	    unwind_table__bias(f->t, m->start, m->end, m->offset, &bias))
		return;
	f->indexed = e.key;
	e.val.bias_off = bias - (m->start - m->offset) + f->base;
	if (u->files_fd >= 0)
		bpf_map_update_elem(u->files_fd, &e.key, &e.val, BPF_ANY);
	else
		array__push((void **)&u->pending, &u->npending, &u->pending_cap, &e, sizeof(e));
}

/* The binary behind a file mapping, its table built on first sight of the
 * file, or of its build-id under another inode (a container's copy). */
static struct unwinder_file *file_of(struct unwinder *u, const struct map_entry *m, pid_t pid,
				     int root)
{
	uint64_t key = file_key(u, m), bid, i, size;
	char *path = NULL;
	struct unwinder_file *f = NULL;
	bool vdso = key == VDSO_KEY;
	int fd;

	if (hashmap__get(&u->by_file, key, &i))
		return &u->files[i];
	path = vdso ? strdup(m->path) : mapped_file__path(m);
	fd = !path  ? -ENOMEM
	     : vdso ? vdso_image__open(&size)
		    : mapped_file__open(path, m, pid, root);
	bid = build_id_key(fd);
	if (bid && hashmap__get(&u->by_build_id, bid, &i)) {
		if (!hashmap__set(&u->by_file, key, i))
			f = &u->files[i];
		u->st.files_shared++;
	} else {
		f = add_file(u, key, bid);
		if (f)
			build_table(u, f, fd, path ? path : m->path);
		if (f && fd >= 0)
			f->go = stack_walkers__of_file(fd) & WALKER_GO;
	}
	/* no file for bpf_find_vma() to find it by */
	if (f && !vdso)
		index_file(u, f, m);
	if (fd >= 0)
		close(fd);
	free(path);
	return f;
}

/* The C library's or the dynamic loader's: nearly every program maps
 * them. */
static bool common_library(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "ld-linux", 8);
}

/* The C library's and the loader's tables, built on a thread while the
 * programs are verified, from our own mappings: a command forked from us
 * has them until it execs, and nearly every program maps these two, so its
 * first samples find their rows at once. */
static void *warm(void *arg)
{
	struct unwinder *u = arg;
	struct proc_maps maps = {};
	pid_t self = getpid();

	if (proc_maps__read(self, &maps))
		return NULL;
	for (size_t i = 0; i < maps.n && !u->warm_err; i++) {
		const struct map_entry *m = &maps.v[i];

		if (m->path[0] == '/' && m->perms[2] == 'x' && common_library(m->path) &&
		    !file_of(u, m, self, 0))
			u->warm_err = -ENOMEM;
	}
	proc_maps__free(&maps);
	return NULL;
}

int unwinder__new(struct unwinder **out, struct bpf_map *rows, uint32_t max_rows)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	struct placing probe = { .u = u };
	int err, fd;

	if (!u)
		return -ENOMEM;
	u->rows = (struct map_slot){ .outer_fd = -1 };
	u->max_rows = max_rows & ~(UNWIND_CHUNK_ROWS - 1);
	if (vdso_image__size(&u->vdso_size))
		u->vdso_size = 0; /* [vdso] frames by frame pointers */
	u->procs_fd = u->files_fd = u->below_fd = -1;
	u->scratch = malloc(sizeof(*u->scratch));
	u->chunks = calloc(u->max_rows / UNWIND_CHUNK_ROWS + 1, sizeof(*u->chunks));
	if (!u->scratch || !u->chunks || !u->max_rows) {
		err = u->max_rows ? -ENOMEM : -EINVAL;
		goto err_free;
	}
	fd = make_chunk();
	if (fd < 0) {
		err = fd;
		goto err_free;
	}
	u->chunks[u->nchunks++] = fd;
	err = map_slot__start(&u->rows, rows, fd);
	/* chunks that cannot be mapped fail here, not at the first binary */
	if (!err)
		err = map_window(&probe, 0, UNWIND_CHUNK_ROWS - 1);
	unmap_window(&probe);
	if (err)
		goto err_free;
	u->warming = !pthread_create(&u->warmer, NULL, warm, u);
	*out = u;
	return 0;
err_free:
	unwinder__free(u);
	return err;
}

static void stop_warming(struct unwinder *u)
{
	if (u->warming)
		pthread_join(u->warmer, NULL);
	u->warming = false;
}

int unwinder__ready(struct unwinder *u, int procs_fd, int files_fd, int below_fd)
{
	int err = map_slot__finish(&u->rows);

	stop_warming(u);
	u->procs_fd = procs_fd;
	u->files_fd = files_fd;
	u->below_fd = below_fd;
	/* the BPF side's entry for a process not written yet, at pid 0 */
	memset(u->scratch, 0, sizeof(*u->scratch));
	if (!err && bpf_map_update_elem(procs_fd, &(__u32){ 0 }, u->scratch, BPF_ANY))
		err = -errno;
	for (size_t i = 0; i < u->npending; i++)
		bpf_map_update_elem(files_fd, &u->pending[i].key, &u->pending[i].val, BPF_ANY);
	free(u->pending);
	u->pending = NULL;
	u->npending = u->pending_cap = 0;
	return err ?: u->warm_err;
}

/* The table of e's file: built now if build, else only one built before
 * (NULL when there is none yet: *missing is set). */
static struct unwinder_file *table_of(struct unwinder *u, const struct map_entry *e, pid_t pid,
				      int root, bool build, bool *missing)
{
	uint64_t i;

	if (build)
		return file_of(u, e, pid, root);
	if (hashmap__get(&u->by_file, file_key(u, e), &i))
		return &u->files[i];
	*missing = true;
	return NULL;
}

static void describe_mapping(struct unwinder *u, const struct map_entry *e, pid_t pid, int root,
			     bool build, bool *missing, bool *go, struct unwind_mapping *um)
{
	struct unwinder_file *f;
	uint64_t bias;

	*um = (struct unwind_mapping){ .start = e->start, .end = e->end };
	if (e->path[0] != '/' && !is_vdso(u, e))
		return; /* anonymous (JIT): frame pointers */
	f = table_of(u, e, pid, root, build, missing);
	*go = *go || (f && f->go);
	if (!f || !f->nrows || unwind_table__bias(f->t, e->start, e->end, e->offset, &bias))
		return;
	um->bias = bias + f->base;
	um->first = f->first;
	um->nrows = f->nrows;
}

/* pid's entry, with the tables built before only unless build. Sets
 * *missing when a file has none yet. */
static int write_process(struct unwinder *u, pid_t pid, int root, const struct proc_maps *maps,
			 bool build, bool *missing)
{
	struct unwind_proc *p = u->scratch;
	uint64_t jvm;
	__u32 key = pid;
	__u8 one = 1;
	bool go = false;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < maps->n && p->n < UNWIND_MAX_MAPPINGS; i++)
		describe_mapping(u, &maps->v[i], pid, root, build, missing, &go, &p->m[p->n++]);
	if (go && u->below_fd >= 0)
		bpf_map_update_elem(u->below_fd, &key, &one, BPF_ANY);
	if (hashmap__get(&u->jvm_of, (uint64_t)pid, &jvm)) {
		p->jvm_lo = u->jvms[jvm - 1].lo;
		p->jvm_hi = u->jvms[jvm - 1].hi;
	}
	/* a new gen for every entry: rows cached under an older one are not used */
	p->gen = ++u->gen ? u->gen : ++u->gen;
	return bpf_map_update_elem(u->procs_fd, &key, p, BPF_ANY) ? -errno : 0;
}

/* Written twice when some of its files have no table yet: first with those
 * built before (the C library's, the loader's: through them its stacks
 * reach _start, by frame pointers in the rest), then once the others are
 * built, which takes a large program (node, clang) a tenth of a second or
 * more, all of it for a short one's life. */
int unwinder__add_process(struct unwinder *u, pid_t pid, int root, const struct proc_maps *maps)
{
	bool missing = false;
	int err = write_process(u, pid, root, maps, false, &missing);

	if (missing)
		err = write_process(u, pid, root, maps, true, &missing);
	if (err) {
		u->st.procs_failed++;
		return err;
	}
	u->st.maps_truncated += maps->n > UNWIND_MAX_MAPPINGS;
	u->st.processes++;
	return 0;
}

int unwinder__add_latest(struct unwinder *u, struct procs *ps, pid_t pid)
{
	const struct proc_maps *maps = procs__latest(ps, pid);
	int err = maps ? unwinder__add_process(u, pid, procs__root(ps, pid), maps) : 0;

	/* a full process map is counted: that process uses frame pointers */
	return err == -ENOMEM ? err : 0;
}

int unwinder__snapshot(struct unwinder *u, struct procs *ps, pid_t pid)
{
	if (procs__snapshot(ps, pid) || !u)
		return 0; /* gone already: nothing to keep */
	return unwinder__add_latest(u, ps, pid);
}

int unwinder__note_jvm(struct unwinder *u, pid_t pid, uint64_t lo, uint64_t hi)
{
	struct jvm_code code = { lo, hi };
	uint64_t i;

	if (!hashmap__get(&u->jvm_of, (uint64_t)pid, &i)) {
		if (!lo && !hi)
			return 0;
		if (array__push((void **)&u->jvms, &u->njvms, &u->jvms_cap, &code, sizeof(code)) ||
		    hashmap__set(&u->jvm_of, (uint64_t)pid, u->njvms))
			return -ENOMEM;
		return 1;
	}
	if (u->jvms[i - 1].lo == lo && u->jvms[i - 1].hi == hi)
		return 0;
	u->jvms[i - 1] = code;
	return 1;
}

int unwinder__set_jvm(struct unwinder *u, struct procs *ps, pid_t pid, uint64_t lo, uint64_t hi)
{
	const struct proc_maps *maps = procs__latest(ps, pid);
	int changed = unwinder__note_jvm(u, pid, lo, hi);

	if (changed <= 0)
		return changed;
	return maps ? unwinder__add_process(u, pid, procs__root(ps, pid), maps) : 0;
}

void unwinder__stats(const struct unwinder *u, struct unwinder_stats *st)
{
	*st = u->st;
	st->rows = u->used;
	st->max_rows = u->max_rows;
	st->bytes = (uint64_t)u->nchunks * UNWIND_CHUNK_ROWS * sizeof(struct unwind_crow);
	st->no_room = u->no_room;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	stop_warming(u);
	map_slot__finish(&u->rows);
	if (u->rows.outer_fd >= 0)
		close(u->rows.outer_fd);
	for (size_t i = 0; i < u->nfiles; i++)
		unwind_table__free(u->files[i].t);
	for (uint32_t c = 0; c < u->nchunks; c++)
		close(u->chunks[c]);
	free(u->chunks);
	hashmap__free(&u->by_file);
	hashmap__free(&u->by_build_id);
	hashmap__free(&u->jvm_of);
	free(u->jvms);
	free(u->pending);
	free(u->files);
	free(u->scratch);
	free(u->no_room);
	free(u);
}
