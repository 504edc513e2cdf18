/* Which language runtime a process is, from what it maps: the runtimes
 * whose JIT code only a perf map names (the BEAM, the JVM, node), so that
 * the summary can say how their frames were named and how to name more. */
#ifndef FLAMEBPF_RUNTIME_H
#define FLAMEBPF_RUNTIME_H

#include "proc_maps.h"

enum runtime {
	RUNTIME_NONE,
	RUNTIME_BEAM, /* Erlang, Elixir: the emulator beam.smp */
	RUNTIME_JVM,  /* HotSpot: libjvm.so */
	RUNTIME_NODE, /* V8 in node */
	RUNTIME_NR,
};

/* The runtime of a process with these executable mappings; when it maps
 * libjvm.so, its path in *jvm (else NULL; valid as long as m). */
enum runtime runtime__of(const struct proc_maps *m, const char **jvm);

/* As the summary names it: "beam.smp", "java", "node"; "" for none. */
const char *runtime__name(enum runtime r);

#endif
