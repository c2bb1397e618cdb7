# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Format 1.1 (sourced by run.sh): the syncobj sites by name, each record's
# fence count and sync flags, the header's unattributed count; 1.0 files
# read as before, never past their 640-byte records; sizes checked per minor.

mk "$W/v11.bin" < "$SPECS/v11.spec"

# hasx FILE LINE: LINE is a whole line of FILE
hasx() {
	grep -qxF -- "$2" "$1" || { echo "no line in $(basename "$1"): $2"; head -60 "$1"; return 1; }
}

t_v11_text_report() {
	run 1 --offline "$W/v11.bin"
	hasx "$W/out" "# input $W/v11.bin @0: format 1.1, device 0000:00:02.0 (dri/0), kernel 6.12.0-test, 5 records, threshold 1.000 ms"
	hasx "$W/out" "# 7 unattributed waits (of no known device, since boot)"
	hasx "$W/out" "  site syncobj_wait, fences 2, all, for-submit, waited 30.000 ms (spun 0.000 ms), outcome completed"
	hasx "$W/out" "  site syncobj_timeline_wait, fences 1, any, for-submit, unsubmitted, waited 40.000 ms (spun 0.000 ms), outcome completed"
	hasx "$W/out" "  site syncobj_wait, fences 3, any, waited 6.000 ms (spun 0.000 ms), outcome completed"
	hasx "$W/out" "  site syncobj_wait, fences 1, all, available, deadline, sync_flags 0x200, waited 7.000 ms (spun 0.000 ms), outcome completed"
	# one fence, no flags, not a syncobj site: nothing added
	hasx "$W/out" "  site request_wait, waited 5.000 ms (spun 0.000 ms), outcome completed"
	eq "$(grep -c ', fences ' "$W/out")" 4
	hasx "$W/out" "  engine rcs0, fence 21:7, owner vkapp[200], no timeout"
}

t_v11_json() {
	run 1 --offline -F json "$W/v11.bin"
	json_ok "$W/out"
	eq "$(jq_ "$W/out" 'd["inputs"][0]["version"], d["inputs"][0]["unattributed"]')" "1.1 7"
	eq "$(jq_ "$W/out" '[(s["site"], s["site_id"], s["fence_count"], s["sync_flags"]) for s in d["stalls"]]')" \
		"[('syncobj_wait', 5, 2, ['wait_all', 'for_submit']), ('request_wait', 1, 1, []), ('syncobj_timeline_wait', 6, 1, ['for_submit', 'unsubmitted']), ('syncobj_wait', 5, 3, []), ('syncobj_wait', 5, 1, ['wait_all', 'available', 'deadline', '0x200'])]"
	# the keys come in a fixed order, fence_count and sync_flags after timeout_ns
	eq "$(jq_ "$W/out" 'list(d["stalls"][0].keys())[17:21]')" "['timeout_ns', 'fence_count', 'sync_flags', 'wait_flags']"
	eq "$(jq_ "$W/out" 'd["stalls"][2]["flags"]')" "['engine', 'fence', 'owner']"
}

t_v11_summary() {
	run 1 --offline summary "$W/v11.bin"
	hasx "$W/out" "# 7 unattributed waits (of no known device, since boot)"
	hasx "$W/out" "       3       43.000     30.000      7.000     30.000  syncobj_wait"
	hasx "$W/out" "       1       40.000     40.000     40.000     40.000  syncobj_timeline_wait"
	hasx "$W/out" "       1        5.000      5.000      5.000      5.000  request_wait"
	run 1 --offline -F json summary "$W/v11.bin"
	eq "$(jq_ "$W/out" 'd["inputs"][0]["unattributed"], [(g["site"], g["count"]) for g in d["sites"]]')" \
		"7 [('syncobj_wait', 3), ('syncobj_timeline_wait', 1), ('request_wait', 1)]"
}

t_v11_site_filter() {
	run 1 --offline -F json --site syncobj_wait "$W/v11.bin"
	eq "$(jq_ "$W/out" '[s["start_ns"] for s in d["stalls"]]')" "[1000000000, 2500000000, 3500000000]"
	run 1 --offline -F json --site syncobj_timeline_wait "$W/v11.bin"
	eq "$(jq_ "$W/out" '[(s["comm"], s["fence_count"]) for s in d["stalls"]]')" "[('vk-timeline', 1)]"
	run 1 --offline -F json --site 6 --site request_wait "$W/v11.bin"
	eq "$(jq_ "$W/out" 'd["count"]')" 2
	run 1 --offline -F folded --folded-root=comm --site syncobj_timeline_wait "$W/v11.bin"
	eq "$(cat "$W/out")" "vk-timeline;[unknown];[unknown]_[k] 40000"
}

# 1.0 files: no unattributed line (null in JSON), one fence and no sync
# flags per record, as docs/format.md says; a record's 1.1
# fields are never taken from the bytes after it (here the next record's
# seq, 5, and the CPU table would be read)
t_v10_still_read() {
	printf 'cpu 0\nrec cpu=0 seq=4 start=1 dur=2000000 site=5\nrec cpu=0 seq=5 start=2 dur=3000000 site=6\n' |
		mk "$W/v10.bin"
	eq "$(stat -c %s "$W/v10.bin")" $((288 + 48 + 2 * 640))
	run 0 --offline "$W/v10.bin"
	hasx "$W/out" "# input $W/v10.bin @0: format 1.0, device 0000:00:02.0 (dri/0), kernel 6.12.0-test, 2 records, threshold 0.000 ms"
	hasnt "$W/out" "unattributed"
	eq "$(grep -c ', fences 1, any, waited' "$W/out")" 2
	# (a 1.0 writer has no syncobj sites: a record at one reads as 1 fence)
	hasx "$W/out" "  site syncobj_wait, fences 1, any, waited 2.000 ms (spun 0.000 ms), outcome completed"
	run 0 --offline -F json "$W/v10.bin"
	eq "$(jq_ "$W/out" 'd["inputs"][0]["version"], d["inputs"][0]["unattributed"]')" "1.0 None"
	eq "$(jq_ "$W/out" '[(s["fence_count"], s["sync_flags"]) for s in d["stalls"]]')" "[(1, []), (1, [])]"
	# the golden 1.0 dump and the same records as 1.1 differ only in the
	# format and the unattributed line
	sed 's/^header /header version_minor=1 /' "$SPECS/golden.spec" | mk "$W/golden11.bin"
	run 1 --offline --kallsyms "$KS" "$W/golden11.bin"
	sed '1d;/unattributed waits/d' "$W/out" > "$W/g11.txt"
	hasx "$W/out" "# 0 unattributed waits (of no known device, since boot)"
	run 1 --offline --kallsyms "$KS" "$W/golden.bin"
	sed 1d "$W/out" > "$W/g10.txt"
	diff -u "$W/g10.txt" "$W/g11.txt"
}

# each minor's own minimum sizes: a "1.1" file with 1.0's header or record
t_v11_sizes_checked() {
	printf 'header version_minor=1 record_size=640\ncpu 0\nrec cpu=0 dur=1\n' | mk "$W/b1.bin"
	bad "$W/b1.bin" 16 "record_size 640 invalid for format 1.1 (minimum 648, multiple of 8)"
	printf 'header version_minor=1 header_size=288\ncpu 0\n' | mk "$W/b2.bin"
	bad "$W/b2.bin" 12 "header_size 288 out of range [296, 1048576] for format 1.1"
	printf 'header version_minor=0 header_size=280\ncpu 0\n' | mk "$W/b3.bin"
	bad "$W/b3.bin" 12 "header_size 280 out of range [288, 1048576] for format 1.0"
	# a 1.1 file cut in its last record's 1.1 fields
	printf 'header version_minor=1\ncpu 0\nrec cpu=0 dur=1\ntruncate %d\n' $((296 + 48 + 644)) |
		mk "$W/b4.bin"
	bad "$W/b4.bin" $((296 + 48 + 644)) "truncated: 1 records of 648 bytes"
}

# a newer minor than the reader knows (1.5): bigger header, CPU entries and
# records, read as 1.4 (whose records here have no maps and no snapshot, and
# whose empty submit section says so in a line of its own), the 1.1 fields
# as in the 1.1 file but unattributed, unknown since 1.3
t_v15_read_as_v11() {
	sed 's/^header version_minor=1 /header version_minor=5 header_size=352 cpu_entry_size=64 record_size=720 /' \
		"$SPECS/v11.spec" | mk "$W/v15.bin"
	run 1 --offline "$W/v15.bin"
	has "$W/out" "# no submit records lost (0 in the file)"
	# no submit records: the stalls on a fence say their submission was
	# not recorded, the others nothing
	eq "$(grep -c '^  submitted: not recorded$' "$W/out")" "$(grep -c 'fence=' "$SPECS/v11.spec")"
	sed '1d;/^# no submit records lost /d;/^  submitted: not recorded$/d;s/\[unknown: maps not saved\]/[unknown: no maps]/' \
		"$W/out" > "$W/v15.txt"
	eq "$(grep -c 'maps not saved' "$W/out")" 2
	run 1 --offline "$W/v11.bin"
	# read as 1.3, whose writer no longer counts unattributed waits
	sed '1d;/ unattributed waits /d' "$W/out" > "$W/v11.txt"
	diff -u "$W/v11.txt" "$W/v15.txt"
	run 1 --offline -F json "$W/v15.bin"
	eq "$(jq_ "$W/out" 'd["inputs"][0]["version"], d["inputs"][0]["unattributed"], [s["fence_count"] for s in d["stalls"]]')" \
		"1.5 None [2, 1, 1, 3, 1]"
}

# an archive of a 1.1 file reports the same
t_v11_archive() {
	run 0 record --no-kallsyms -o "$W/v11.ar" "$W/v11.bin"
	run 1 --offline -F json "$W/v11.ar"
	eq "$(jq_ "$W/out" 'd["inputs"][0]["unattributed"], [s["sync_flags"] for s in d["stalls"]][0]')" \
		"7 ['wait_all', 'for_submit']"
}
