/* A tracepoint as a perf event (PERF_TYPE_TRACEPOINT), running a BPF
 * program of type tracepoint at each hit: the one way to have the record
 * tracefs's format lays out as the program's context. */
#ifndef FLAMEBPF_TP_EVENT_H
#define FLAMEBPF_TP_EVENT_H

struct bpf_link;
struct bpf_program;

/* Attaches prog to the tracepoint of ftrace id (events/.../id in tracefs):
 * it runs at the hits on every CPU. Returns the link (which owns the perf event), or NULL with
 * errno set. */
struct bpf_link *tp_event__attach(struct bpf_program *prog, unsigned int id, int ncpus);

#endif
