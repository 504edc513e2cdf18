/* COMMAND mode: a child that waits, stopped before exec, until the profiler
 * is attached, so that sampling sees it from its first instruction. */
#ifndef FLAMEBPF_COMMAND_H
#define FLAMEBPF_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

struct command {
	pid_t pid;
	int go_fd;  /* write end: closing it lets the child exec */
	int err_fd; /* read end: the child writes errno here if exec fails */
	bool reaped;
	int status; /* wait status once reaped */
};

/* Forks the child, which blocks before exec. Returns 0 or -errno. */
int command__spawn(struct command *c, char *const argv[]);

/* Lets the child exec. Returns 0, or the exec failure as -errno (the child
 * is reaped then). */
int command__start(struct command *c);

/* The inode of the program this process runs, which a spawned child runs
 * until it execs the command (bpf's PID_BEFORE_EXEC); 0 if unknown. */
unsigned long long command__spawner_ino(void);

/* Lets the command, stopped at its exec until its tables were built (bpf's
 * hold_at_exec()), go on. */
void command__let_go(pid_t pid);

/* Makes the waiting child exit without running anything, and reaps it. */
void command__abort(struct command *c);

/* Reaps the child if it exited. Returns true once it has. */
bool command__exited(struct command *c);

/* Terminates a child still running (SIGTERM, then SIGKILL after a grace
 * period) and reaps it. */
void command__stop(struct command *c);

#endif
