/* SPDX-License-Identifier: GPL-2.0 */
/* ABI of `-f py:REGEX` (bpf/py_trace.bpf.h): probes inside CPython 3.11-3.13's
 * evaluation loop, on the bytecode handlers where a frame starts or
 * resumes (RESUME) and where it returns or suspends (RETURN_VALUE,
 * YIELD_VALUE), with the register that holds the frame in the cookie
 * (src/capture/py_sites.c finds both). The function's qualified name is
 * matched in the kernel by a DFA (src/util/regex_dfa.c), once per code
 * object, so that every call of a matching function is counted from the
 * first. CPython 3.10 enters its evaluation function for every call: probes
 * on its entry and return (on_py310) see them, the frame its second
 * argument; names there are co_name's (3.10 has no co_qualname). */
#ifndef FLAMEBPF_PY_TRACE_H
#define FLAMEBPF_PY_TRACE_H

#define PY_DFA_STATES  256 /* DFA_MAX_STATES */
#define PY_DFA_CLASSES 64  /* DFA_MAX_CLASSES */
#define PY_DFA_AT_END  1
#define PY_DFA_MATCHED 2
#define PY_NAME_MAX    128 /* bytes of a name matched; a power of two */

/* A probe's cookie: the frame's register (x86 number) in its low 4 bits;
 * from bit 8, for an entry, 0 or PY_SITE_FALLS_THROUGH | the condition code
 * of the jcc at the site, which then starts a call only when it does not
 * jump (src/capture/py_sites.h) */
#define PY_COOKIE_REG	     15
#define PY_COOKIE_COND_SHIFT 8
#define PY_COOKIE_FALLS	     0x10

struct py_dfa {
	__u32 nstates, nclasses;
	__u8 cls[256];
	__u16 next[PY_DFA_STATES * PY_DFA_CLASSES];
	__u8 accept[PY_DFA_STATES];
};

/* Where the probes read (byte offsets, of the target CPython's structures). */
struct py_trace_layout {
	__u32 frame_code;     /* _PyInterpreterFrame.f_code */
	__u32 frame_previous; /* _PyInterpreterFrame.previous */
	__u32 co_qualname;    /* PyCodeObject.co_qualname */
	__u32 co_filename;    /* PyCodeObject.co_filename */
	__u32 co_firstlineno; /* PyCodeObject.co_firstlineno */
	__u32 str_length;     /* PyASCIIObject.length */
	__u32 str_state;      /* PyASCIIObject.state */
	__u32 str_ascii_data; /* where a compact ASCII string's bytes begin */
	/* PyCodeObject._co_instrumentation_version (3.12+; 0: none): a RESUME
	 * that finds it behind the interpreter's instruments the code and runs
	 * again, for the same call */
	__u32 co_version;
};

/* A code object of a process, and what was decided for it: name is its
 * co_qualname's address when decided (a code object freed and another made
 * at its address has another name object), id the function id of a
 * matching one. */
struct py_code_key {
	__u32 pid;
	__u32 pad;
	__u64 code;
};

struct py_code_val {
	__u64 name;
	__u32 id;
	__u32 match;
};

/* A matching code object got function id id, with its name, file and
 * first line as the kernel read them (a process may be gone before user
 * space could read them): name_len and file_len bytes of ASCII, -1 when
 * the string is not compact ASCII or longer than its field. */
#define EV_PY_CODE  22
#define PY_FILE_MAX 256 /* a power of two */

struct py_code_event {
	__u32 type;
	__u32 pid;
	__u64 code;
	__u32 id;
	__s32 firstlineno;
	__s32 name_len, file_len;
	char name[PY_NAME_MAX];
	char file[PY_FILE_MAX];
};

#endif
