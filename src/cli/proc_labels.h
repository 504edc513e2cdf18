/* The labels a pushed profile gives each process beyond pid and comm: its
 * executable's GNU build-id, its cgroup (v2 path), and the container id
 * that path names, where there is one. Read from /proc once per pid. */
#ifndef FLAMEBPF_PROC_LABELS_H
#define FLAMEBPF_PROC_LABELS_H

#include "formats/sink.h"

struct proc_labels;

/* NULL and errno on failure. */
struct proc_labels *proc_labels__new(void);
void proc_labels__free(struct proc_labels *pl);

/* The labeler the writers ask (pprof, OTLP); valid as long as pl. */
const struct proc_labeler *proc_labels__labeler(struct proc_labels *pl);

/* The container id in a cgroup path ("/system.slice/docker-<64 hex>.scope",
 * ".../cri-containerd-<id>.scope", ".../libpod-<id>.scope", ".../<id>"):
 * its 64 hex digits into id (65 bytes); false when it names none. */
bool proc_labels__container(const char *cgroup, char id[65]);

#endif
