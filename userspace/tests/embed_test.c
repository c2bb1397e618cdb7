// SPDX-License-Identifier: MIT
/*
 * src/embed.awk keeps a file byte for byte: print the embedded
 * flamegraph.js or flamegraph.css ("js" or "css") for cmp(1) against the
 * original.
 */
#include <stdio.h>
#include <string.h>

#include "flamegraph_assets.h"

int main(int argc, char **argv)
{
	const char *s = argc > 1 && !strcmp(argv[1], "css") ? flamegraph_css : flamegraph_js;

	return fputs(s, stdout) == EOF;
}
