// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/msg.h"
#include "targets.h"

int targets__of(const struct source_opts *o, struct binaries *out)
{
	int err = 0;

	for (size_t i = 0; i < o->npids && !err; i++) {
		struct binaries one = {};

		err = binaries__of_pid(o->pids[i], &one);
		for (size_t j = 0; !err && j < one.n; j++)
			err = binaries__add(out, &one.v[j]);
		binaries__free(&one);
		if (err)
			p_err("cannot read the mappings of process %d: %s", o->pids[i],
			      strerror(-err));
	}
	if (!err && o->command && (err = binaries__of_command(o->command[0], out)))
		p_err("cannot find the binaries of '%s': %s", o->command[0], strerror(-err));
	return err == -ENOENT || err == -ESRCH || err == -EACCES ? -EINVAL : err;
}

int targets__resolve(const char *spec, const struct binaries *target, struct binaries *out)
{
	int err = binaries__resolve(spec, target->n ? target : NULL, out);
	char *found = NULL;

	/* the file found along PATH, named: a pyenv shim is a script */
	if (err == -ENOEXEC && !strchr(spec, '/') && !binaries__find_program(spec, &found))
		p_err("'%s' is %s, which is not an ELF binary (a script?)", spec, found);
	else if (err == -ENOEXEC)
		p_err("'%s' is not an ELF binary", spec);
	else if (err == -ENOENT)
		p_err("no binary '%s' in the target, the library directories or PATH", spec);
	else if (err)
		p_err("cannot open '%s': %s", spec, strerror(-err));
	free(found);
	return err == -ENOMEM ? err : err ? -EINVAL : 0;
}
