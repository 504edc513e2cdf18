/* The USDT probes a binary declares: sys/sdt.h writes one ELF note
 * ("stapsdt", type 3) per probe into .note.stapsdt, each its address, the
 * link-time address of .stapsdt.base, its semaphore's address (0: none),
 * then provider, name and argument spec as strings. */
#ifndef FLAMEBPF_USDT_NOTES_H
#define FLAMEBPF_USDT_NOTES_H

#include <stddef.h>
#include <stdint.h>

struct usdt_note {
	uint64_t pc, base, sema;	    /* as the note gives them (link time) */
	const char *provider, *name, *args; /* NUL-terminated, inside the notes' data */
};

typedef int (*usdt_note_cb)(const struct usdt_note *n, void *arg);

/* Calls cb for each stapsdt note in the size bytes of a note section
 * (other notes are passed over); stops at the first non-zero return of
 * cb, which it returns. -ENOEXEC when the data is not well-formed notes
 * (a note running past the end, strings without their NUL). */
int usdt_notes__parse(const uint8_t *data, size_t size, usdt_note_cb cb, void *arg);

#endif
