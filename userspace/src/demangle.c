// SPDX-License-Identifier: MIT
/* C++ names, demangled with libstdc++'s demangler (the C++ ABI's), as
 * eu-stack and perf do. */
#include <stdlib.h>

#include "usym.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The demangled name of raw, valid until the next call; raw if not C++. */
const char *demangle(const char *raw)
{
	static char *last;
	int status = -1;
	char *nice;

	if (raw[0] != '_' || raw[1] != 'Z')
		return raw;
	nice = __cxa_demangle(raw, NULL, NULL, &status);
	if (status != 0) {
		free(nice);
		return raw;
	}
	free(last);
	last = nice;
	return nice;
}
