/* Asking a JVM for its perf map at the end of a capture, when it wrote
 * none: `jcmd PID Compiler.perfmap` (JDK 17+) makes HotSpot write
 * /tmp/perf-PID.map itself, its code cache as it is then (compiled
 * methods, the interpreter, stubs). */
#ifndef FLAMEBPF_JVM_PERFMAP_H
#define FLAMEBPF_JVM_PERFMAP_H

#include <limits.h>
#include <sys/types.h>

/* A large code cache takes the JVM a while to write; jcmd itself starts a
 * JVM (0.3 to 0.5 s here). The time all the asks of a capture may take
 * together: a machine may run many JVMs. */
#define JVM_PERFMAP_TIMEOUT_MS 10000

struct jvm_ask {
	char jcmd[PATH_MAX]; /* the jcmd that was (or would have been) run */
	int status;	     /* its exit status when it ran to the end */
	double secs;	     /* how long it took */
	char said[200];	     /* the last line it printed, for a failure */
};

/* Runs jcmd for pid as the user and group pid runs as (HotSpot's attach
 * mechanism takes only its own user), the one beside libjvm (the JVM's
 * own JDK) or else jcmd on PATH, for at most timeout_ms. Returns 0 when
 * jcmd exited 0; -ENOENT when there is no jcmd, -ETIMEDOUT (it was
 * killed), -ECHILD when it failed (a->status, a->said), -EPERM when it
 * could not take the JVM's user, or -errno. */
int jvm_perfmap__ask(pid_t pid, const char *libjvm, int timeout_ms, struct jvm_ask *a);

#endif
