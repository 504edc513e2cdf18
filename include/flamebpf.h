/* SPDX-License-Identifier: MIT */
/*
 * flamebpf.h: spans for flamebpf, marked by the program itself.
 *
 *   #include <flamebpf.h>           (before <sys/sdt.h>, if the file uses it too)
 *
 *   FLAMEBPF_SPAN_DECLARE(req);     once, at file scope, per span name
 *
 *   FLAMEBPF_SPAN_BEGIN(req, path); (its label: a string, or a number)
 *   ...
 *   FLAMEBPF_SPAN_END(req);
 *
 *   FLAMEBPF_SPAN_SCOPE(req, path); (C++: ends at the end of the scope)
 *
 * Each is a USDT probe (provider flamebpf, probes req_begin and req_end)
 * behind a semaphore: untraced, a span costs a load and a branch not
 * taken. Traced:
 *
 *   sudo flamebpf -F 99 --span 'req=usdt:./server:flamebpf:req_begin(arg0),usdt:./server:flamebpf:req_end' -- ./server
 *
 * puts every sample taken inside a span under a frame "[req LABEL]", and
 * without -F times the spans themselves. Another file of the program
 * that marks the same span declares it with FLAMEBPF_SPAN_EXTERN(req).
 */
#ifndef FLAMEBPF_H
#define FLAMEBPF_H

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#define FLAMEBPF_SPAN_DECLARE(name)                                                                \
	__extension__ unsigned short flamebpf_##name##_begin_semaphore                             \
		__attribute__((unused, section(".probes")));                                        \
	__extension__ unsigned short flamebpf_##name##_end_semaphore                               \
		__attribute__((unused, section(".probes")))

#define FLAMEBPF_SPAN_EXTERN(name)                                                                 \
	extern unsigned short flamebpf_##name##_begin_semaphore;                                   \
	extern unsigned short flamebpf_##name##_end_semaphore

#define FLAMEBPF_SPAN_BEGIN(name, label)                                                           \
	do {                                                                                       \
		if (__builtin_expect(flamebpf_##name##_begin_semaphore, 0))                        \
			STAP_PROBE1(flamebpf, name##_begin, label);               \
	} while (0)

#define FLAMEBPF_SPAN_END(name)                                                                    \
	do {                                                                                       \
		if (__builtin_expect(flamebpf_##name##_end_semaphore, 0))                          \
			STAP_PROBE(flamebpf, name##_end);                                          \
	} while (0)

#ifdef __cplusplus
#define FLAMEBPF_SPAN_SCOPE(name, label)                                                           \
	FLAMEBPF_SPAN_BEGIN(name, label);                                                          \
	struct flamebpf_##name##_scope {                                                           \
		~flamebpf_##name##_scope() { FLAMEBPF_SPAN_END(name); }                             \
	} flamebpf_##name##_scope_end
#endif

#endif
