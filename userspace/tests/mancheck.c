// SPDX-License-Identifier: MIT
/*
 * mancheck: what the code has that the man page must document, one item a
 * line: "option NAME SHORT ARG", "site NAME", "reason TEXT", "exit N".
 * tests/mancheck.py compares it with i915-stalls.1 both ways.
 */
#include <stdio.h>

#include "options.h"

int main(void)
{
	size_t i;

	for (i = 0; i < opt_count; i++)
		printf("option %s %c %s\n", opt_table[i].name,
		       opt_table[i].short_name ? opt_table[i].short_name : '-',
		       opt_table[i].arg ? opt_table[i].arg : "-");
	for (i = 0; i < 65536; i++)
		if (site_name((unsigned int)i))
			printf("site %s\n", site_name((unsigned int)i));
	for (i = 1; i < R_COUNT; i++)
		printf("reason %s\n", reason_text((enum reason)i));
#define EXIT_LINE(name, value, text) printf("exit %d\n", value);
	EXIT_STATUSES(EXIT_LINE)
#undef EXIT_LINE
	for (i = 0; i < C_COUNT; i++)
		printf("command %s\n", cmd_names[i]);
	return 0;
}
