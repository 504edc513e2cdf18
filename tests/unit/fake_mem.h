/* A fake process memory for the readers of interpreters' and JITs'
 * records (py_code, beam_jit): FAKE_MEM_SIZE bytes at FAKE_MEM_BASE, which
 * the includer defines first; reads outside them fail as a process's
 * unmapped memory would. */
#ifndef FLAMEBPF_TEST_FAKE_MEM_H
#define FLAMEBPF_TEST_FAKE_MEM_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

static uint8_t image[FAKE_MEM_SIZE];

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < FAKE_MEM_BASE || len > FAKE_MEM_SIZE || addr - FAKE_MEM_BASE > FAKE_MEM_SIZE - len)
		return -EFAULT;
	memcpy(buf, &image[addr - FAKE_MEM_BASE], len);
	return 0;
}

static void put(uint64_t addr, const void *v, size_t len)
{
	memcpy(&image[addr - FAKE_MEM_BASE], v, len);
}

static inline void put_u16(uint64_t addr, uint16_t v)
{
	put(addr, &v, sizeof(v));
}

static inline void put_u32(uint64_t addr, uint32_t v)
{
	put(addr, &v, sizeof(v));
}

static inline void put_u64(uint64_t addr, uint64_t v)
{
	put(addr, &v, sizeof(v));
}

#endif
