/* SPDX-License-Identifier: GPL-2.0 */
/* ABI of the Python frame walk (bpf/python.bpf.h), shared with user space
 * (src/capture/python_procs.c fills the map, src/symbols/py_code.c reads the
 * records). */
#ifndef FLAMEBPF_PYTHON_H
#define FLAMEBPF_PYTHON_H

/* Where CPython keeps what the walk reads: byte offsets in its structures,
 * one table per version (src/symbols/py_layout.c). */
struct py_offsets {
	__u32 runtime_interp_head; /* _PyRuntime.interpreters.head */
	__u32 interp_next;	   /* PyInterpreterState.next */
	__u32 interp_threads_head; /* PyInterpreterState.threads.head */
	__u32 tstate_next;	   /* PyThreadState.next */
	__u32 tstate_native_tid;   /* PyThreadState.native_thread_id */
	__u32 tstate_cframe;	   /* PyThreadState.cframe */
	__u32 cframe_current;	   /* _PyCFrame.current_frame */
	__u32 frame_code;	   /* _PyInterpreterFrame.f_code */
	__u32 frame_previous;	   /* _PyInterpreterFrame.previous */
	__u32 frame_prev_instr;	   /* _PyInterpreterFrame.prev_instr */
	__u32 frame_is_entry;	   /* _PyInterpreterFrame.is_entry */
	__u32 code_adaptive;	   /* PyCodeObject.co_code_adaptive: the instructions */
};

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
 * evaluation loop began running Python frames. */
#define PY_MAX_FRAMES	63 /* (SAMPLE_MAX_DEPTH - 1) / 2 */
#define PY_MAX_THREADS	64 /* thread states passed over, all interpreters together */
#define PY_MAX_TSTATES	4  /* a thread's states: one per interpreter it runs in */
#define PY_FRAME_ENTRY	(1ULL << 32)
#define PY_FRAME_WINDOW 80 /* the bytes of a frame read at once: is_entry below */

#endif
