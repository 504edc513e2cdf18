/* A Java method's name as the JVM's perf map writes it, from the class
 * name and method descriptor its class file holds. */
#ifndef FLAMEBPF_JVM_SIGNATURE_H
#define FLAMEBPF_JVM_SIGNATURE_H

#include <stddef.h>

/* A method's class name and descriptor ("java/lang/String",
 * "(I[Ljava/lang/Object;)V") as Java writes them ("void
 * java.lang.String.NAME(int, java.lang.Object[])"). -EINVAL for a
 * malformed descriptor, -ENOSPC when buf is too small. */
int jvm_signature__format(const char *klass, const char *name, const char *desc, char *buf,
			  size_t len);

#endif
