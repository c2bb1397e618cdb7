#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fill git format-patch's cover letter from docs/cover-letter.txt.

The text's first line is the subject, the rest (after a blank line) the
body; the shortlog, diffstat and base-commit lines git wrote are kept.
An optional third argument replaces the Date: git wrote (the time of the
export) with a date of the series.
"""
import re
import sys

cover, text = sys.argv[1], sys.argv[2]
date = sys.argv[3] if len(sys.argv) > 3 else None
subject, _, body = open(text, encoding="utf-8").read().partition("\n\n")
letter = open(cover, encoding="utf-8").read()
for placeholder, value in (("*** SUBJECT HERE ***", subject.strip()),
                           ("*** BLURB HERE ***", body.strip())):
    if placeholder not in letter:
        sys.exit(f"cover-letter: {cover}: no '{placeholder}'")
    letter = letter.replace(placeholder, value, 1)
if date:
    letter, n = re.subn(r"^Date: .*$", "Date: " + date, letter, count=1, flags=re.M)
    if n != 1:
        sys.exit(f"cover-letter: {cover}: no Date: line")
open(cover, "w", encoding="utf-8").write(letter)
