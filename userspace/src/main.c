// SPDX-License-Identifier: MIT
/*
 * i915-stalls: decode and symbolize the i915 stall log
 * (/sys/kernel/debug/dri/N/i915_stalls).  main() parses the command line
 * and hands it to the command (cmd-*.c).
 */
#include <gelf.h>

#include "options.h"

int main(int argc, char **argv)
{
	static int (*const cmds[C_COUNT])(struct opts *) = {
		[C_REPORT] = cmd_report, [C_SUMMARY] = cmd_summary,
		[C_DIFF] = cmd_diff, [C_RECORD] = cmd_record,
	};
	struct opts o;
	int rc = opts_parse(argc, argv, &o);

	if (rc < 0) {
		elf_version(EV_CURRENT);
		rc = cmds[o.cmd](&o);
	}
	opts_free(&o);
	return rc;
}
