/* SPDX-License-Identifier: GPL-2.0 */
/* ABI of the Python frame walk (bpf/python.bpf.h), shared with user space
 * (src/capture/python_procs.c fills the map, src/symbols/py_code.c reads the
 * records). */
#ifndef FLAMEBPF_PYTHON_H
#define FLAMEBPF_PYTHON_H

/* Where CPython keeps what the walk reads: byte offsets in its structures,
 * from a table per version (src/symbols/py_layout.c) or the interpreter's
 * own _Py_DebugOffsets (3.13+, src/symbols/py_debug_offsets.c); flags
 * (PY_WALK_*) say which of the version's fields the walk follows. */
struct py_offsets {
	__u32 runtime_interp_head; /* _PyRuntime.interpreters.head */
	__u32 interp_next;	   /* PyInterpreterState.next */
	__u32 interp_threads_head; /* PyInterpreterState.threads.head */
	__u32 tstate_next;	   /* PyThreadState.next */
	__u32 tstate_native_tid;   /* PyThreadState.native_thread_id (PY_WALK_PTHREAD: thread_id) */
	__u32 tstate_frame;	   /* PyThreadState.cframe (PY_WALK_CFRAME), else .current_frame */
	__u32 cframe_current;	   /* _PyCFrame.current_frame */
	/* PyThreadState.datastack_chunk, datastack_top the word after it:
	 * where the thread's frames lie one after another (3.11+); 0 when
	 * not (3.10), and frames are read one by one */
	__u32 tstate_datastack;
	__u32 frame_code;     /* _PyInterpreterFrame.f_code (3.13: f_executable) */
	__u32 frame_previous; /* _PyInterpreterFrame.previous */
	__u32 frame_instr;    /* .prev_instr (3.13: instr_ptr, the current one; 3.10: f_lasti) */
	__u32 frame_entry;    /* .is_entry, or .owner (PY_WALK_SHIM) */
	__u32 code_adaptive;  /* PyCodeObject.co_code_adaptive: the instructions */
	__u32 flags;	      /* PY_WALK_* */
};

/* The thread's frame through its _PyCFrame (3.11, 3.12), not directly. */
#define PY_WALK_CFRAME (1U << 0)
/* Where C entered the evaluation loop is a shim frame owned by the C stack
 * (3.12+: owner FRAME_OWNED_BY_CSTACK, no code of its own), not a flag
 * on the first frame it ran (3.11's is_entry). */
#define PY_WALK_SHIM	   (1U << 1)
#define PY_OWNED_BY_CSTACK 3
/* 3.10: a chain of PyFrameObject (frame_previous is f_back), each run by
 * a C call of the evaluation loop of its own (every frame an entry), its
 * instruction an int index (f_lasti), not a pointer. */
#define PY_WALK_FRAMEOBJ (1U << 2)
/* 3.10: the thread state knows its thread by pthread_self() (thread_id),
 * not by its native id. */
#define PY_WALK_PTHREAD (1U << 3)

/* A Python process: where its _PyRuntime is, and its version's layout. */
struct py_proc {
	__u64 runtime; /* the address of _PyRuntime in the process */
	struct py_offsets o;
};

/* The frames a walk records: in an EV_PYSTACK record (a struct
 * sample_stack_event), ip[0] is the process (its code objects are its
 * own), then two words a frame, innermost first: the code object's
 * address, then the instruction's index in its code units (low 32 bits,
 * -1 before the first) with PY_FRAME_ENTRY where one C call of the
 * evaluation loop began running Python frames. The innermost frame's
 * index is 0 there and in the sample's key instead (sample_key.pyinstr):
 * it moves on every sample, and in the record it made every sample's
 * record a new one to send (py_busy's all were). */
#define PY_INSTR_MASK  0xffffffffULL
#define PY_MAX_FRAMES  63 /* (SAMPLE_MAX_DEPTH - 1) / 2 */
#define PY_MAX_THREADS 64 /* thread states passed over, all interpreters together */
#define PY_MAX_TSTATES 4  /* a thread's states: one per interpreter it runs in */
#define PY_FRAME_ENTRY (1ULL << 32)
/* The bytes of a frame read at once: its pointers below 64 (frame_code,
 * frame_previous, frame_instr), frame_entry below PY_FRAME_WINDOW. */
#define PY_FRAME_WINDOW	   80
#define PY_FRAMEOBJ_WINDOW 104 /* PY_WALK_FRAMEOBJ: f_lasti at 96 */
/* The bytes of a thread state read at once: from the first of the fields
 * the walk reads to the last (PyThreadState.cframe to datastack_top: 256
 * in 3.11). */
#define PY_TSTATE_WINDOW 256
/* The bytes of a thread's data stack read at once, its innermost frame's
 * last and those of its callers below, which lie there one after
 * another: one read for the whole stack of most programs. */
#define PY_STACK_SPAN 4096

/* New records are kept by the CPU that made them and sent together, when
 * PY_STAGE_BYTES are kept or the first is PY_STAGE_NS old, or when user
 * space asks (py_flush): a record sent alone cost 700-950 ns a sample at
 * 99 Hz here, most of the walk (the ring buffer's lines are cold), against
 * 100 for one kept. A record's code objects are read when it arrives, so
 * it may wait only while the process most likely lives: with 50 ms, a
 * 0.5 s run of compileall had 4-14 of its 490 samples under code objects
 * it could not name, read after its exit; with 20 ms 0-1, as before. */
#define PY_STAGE_BYTES 8192
#define PY_STAGE_NS    (20ULL * 1000 * 1000)
/* A process younger than this sends each new record at once: it is
 * importing its modules, most often, whose code is freed as soon as each
 * has run, and a record kept 20 ms more finds it gone more often
 * (python3.11 -c "import pydoc; pydoc.writedoc('json')": 21-34% of the
 * samples with a frame left unnamed, against 12-20% sent at once). */
#define PY_STAGE_AFTER_NS (1000ULL * 1000 * 1000)

/* EV_PYSTACKS: bytes of whole EV_PYSTACK records (struct
 * sample_stack_event, each offsetof(ip) + nr words long) one after
 * another. */
struct py_batch_event {
	__u32 type;
	__u32 bytes;
	__u8 rec[PY_STAGE_BYTES];
};

#endif
