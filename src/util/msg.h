/* The one printer of what flamebpf tells the user on stderr, for every
 * layer that reports in words. */
#ifndef FLAMEBPF_MSG_H
#define FLAMEBPF_MSG_H

/* "flamebpf: " + message + newline. */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
