/* SPDX-License-Identifier: MIT */
/*
 * What the end-to-end clients (gpu-demo, vkapp, stallpie) share to report
 * their waits as JSON lines: the clock the stall log uses, errno names
 * and JSON strings.
 */
#ifndef E2E_CLIENTIO_H
#define E2E_CLIENTIO_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns, the clock of the records' start_ns. */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* "" for 0, else the errno's name ("EINTR"). */
static inline const char *errname(long err)
{
	const char *n;

	if (!err)
		return "";
	n = strerrorname_np((int)err);
	return n ? n : "EUNKNOWN";
}

/* A JSON string of printable ASCII; anything else is escaped. */
static inline void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

#endif
