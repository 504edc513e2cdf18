/* OTLP profiles (opentelemetry-proto v1.9.0, profiles v1development): the
 * profile as one ExportProfilesServiceRequest, what an OpenTelemetry
 * collector takes at POST /v1development/profiles. */
#ifndef FLAMEBPF_OUT_OTLP_H
#define FLAMEBPF_OUT_OTLP_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "sink.h"

struct otlp_opts {
	uint64_t start_unix_ns, end_unix_ns; /* the interval the profile covers */
	/* the resource's attributes: host.name, service.name, --label's */
	const struct proc_label *resource;
	size_t nresource;
	const struct proc_labeler *procs; /* per process; NULL: none */
};

/* The encoded request in *buf (malloc'd, *len bytes). Each sample carries
 * its process and thread as attributes (process.pid, thread.id,
 * process.executable.name, thread.name, and the labeler's). Returns 0 or
 * -ENOMEM. */
int otlp__encode(const struct profile *p, const struct otlp_opts *o, uint8_t **buf, size_t *len);

#endif
