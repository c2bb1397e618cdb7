#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The end of make test (scripts/test.sh): sum the result lines of
# RESULTS/*.results.  Prints the failed checks, then the skipped ones, one
# line per reason, "N skipped: NAME, ... (REASON)" (or "0 skipped"), and,
# last, "N passed, N failed", the line CI reads.  A skipped check counts
# neither as passed nor as failed.  Exit status 0 if nothing failed and
# something passed.
#   summary.sh RESULTS
set -uo pipefail

RESULTS=${1:?usage: summary.sh RESULTS}
passed=$(cat "$RESULTS"/*.results | grep -c '^ok ')
failed=$(cat "$RESULTS"/*.results | grep -c '^not ok ')
echo "failed cases:"
grep -h '^not ok ' "$RESULTS"/*.results | sed 's/^/  /' || echo "  none"
# the skipped checks, by reason, in the order they ran
grep -h '^skip ' "$RESULTS"/*.results | awk '
	{
		sub(/^skip /, "")
		i = index($0, ": ")
		name = i ? substr($0, 1, i - 1) : $0
		why = i ? substr($0, i + 2) : "no reason given"
		if (!(why in n))
			order[++nr] = why
		names[why] = n[why]++ ? names[why] ", " name : name
	}
	END {
		for (r = 1; r <= nr; r++)
			printf "%d skipped: %s (%s)\n", n[order[r]], names[order[r]], order[r]
		if (!nr)
			print "0 skipped"
	}'
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
