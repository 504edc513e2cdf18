// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "privileges.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT	  38
#define CAP_BPF_BIT	  39

static uint64_t effective_caps(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t caps = 0;

	if (!f)
		return ~0ULL; /* cannot tell: let the kernel decide */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %" SCNx64, &caps) == 1)
			break;
	fclose(f);
	return caps;
}

int privileges__missing(char *buf, size_t len)
{
	uint64_t caps = effective_caps();
	bool bpf = caps & (1ULL << CAP_BPF_BIT), perfmon = caps & (1ULL << CAP_PERFMON_BIT);

	buf[0] = '\0';
	if ((caps & (1ULL << CAP_SYS_ADMIN_BIT)) || (bpf && perfmon))
		return 0;
	snprintf(buf, len, "%s%s%s", bpf ? "" : "CAP_BPF", !bpf && !perfmon ? " and " : "",
		 perfmon ? "" : "CAP_PERFMON");
	return !bpf + !perfmon;
}
