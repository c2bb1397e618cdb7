# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Format 1.4 (sourced by run.sh after format13.sh): the submit records, the
# join of each stall to the submit record of the request it awaited
# (docs/format.md, "Format 1.4: submit records"), what report, summary,
# folded, svg and diff make of it, and the checks of the submit section.
#
# The files come from mkstall (sub, scpu and map lines).  The submitters'
# and waiters' frames fall in copies of the fx fixtures named by the
# records' own maps (path and build-id), so they resolve by name offline.

F14=$W/f14
rm -rf "$F14"
mkdir -p "$F14"
cp "$FX/plain/fx-pie" "$FX/plain/libfx.so" "$F14/"
E14=$F14/fx-pie
L14=$F14/libfx.so
BE=$((0x555500000000))
BL=$((0x7f0000000000))
bid14() { readelf -n "$1" | awk '/Build ID/ {print $3}'; }
# sym14 BASE FILE SYMBOL [PLUS]: the runtime address of SYMBOL + PLUS
sym14() { printf '0x%x' $(($1 + 0x$(nm "$2" | awk -v n="$3" '$3 == n {print $1}') + ${4:-0})); }
# each file's text mapped at its base (the text segment is at 0x1000 in both)
MAPE14="map start=$((BE + 0x1000)) end=$((BE + 0x2000)) off=0x1000 name=$E14 bid=$(bid14 "$E14")"
MAPL14="map start=$((BL + 0x1000)) end=$((BL + 0x2000)) off=0x1000 name=$L14 bid=$(bid14 "$L14")"
# the submitter's chain: its PC in fx_tail, then return addresses
SUBU14="u=$(sym14 $BE "$E14" fx_tail),$(sym14 $BE "$E14" fx_mid 16),$(sym14 $BL "$L14" fxlib_entry 16),$(sym14 $BE "$E14" main 16)"
# the waiter's: its PC in fx_wait, then main
WAITU14="u=$(sym14 $BE "$E14" fx_wait),$(sym14 $BE "$E14" main 16)"

# sub14 ARGS...: a submit record of vk-client[201] with its chain and maps
sub14() {
	printf 'sub pid=201 tgid=201 comm=vk-client engine=0:0 %s %s\n%s\n%s\n' "$*" "$SUBU14" \
		"$MAPE14" "$MAPL14"
}
# stall14 ARGS...: a stall of app[100] with its chain and map
stall14() {
	printf 'rec pid=100 tgid=100 comm=app dur=2000000 %s %s\n%s\n' "$*" "$WAITU14" "$MAPE14"
}
# the submit block of the stall that starts with START in the report $W/out
submit_block() {
	awk -v s="$1" '
		index($0, s) == 1 { on = 1; next }
		on && /^$/ { exit }
		on && /^  (submitted|submit stack|    #)/ { p = 1 }
		on && p' "$W/out"
}
[ ${#E14} -lt 80 ] || echo "format14.sh: $E14 does not fit a map's 80-byte name" >&2

# One submitter joined: who, when, ahead, its stack by name, in the
# report, --stream and JSON
t_v14_join_report() {
	{
		echo 'header version_minor=4 map_max=4'
		sub14 cpu=1 seq=4 start=1000000000 fence=0xc:345
		stall14 cpu=0 start=1012345000 engine=0:0 fence=0xc:345 flags=0x4000 ahead=1
	} | mk "$W/j.bin"
	run 0 --offline "$W/j.bin"
	has "$W/out" "# no submit records lost (1 in the file)"
	submit_block 1.012345000 > "$W/got"
	cat > "$W/want" <<EOF
  submitted by vk-client[201/201] 12.345 ms before the wait, cpu 1 seq 4; 1 request ahead on rcs0
  submit stack:
    #0  $(printf '0x%016x' "$(sym14 $BE "$E14" fx_tail)") fx_tail+0x0 ($E14)
    #1  $(printf '0x%016x' "$(sym14 $BE "$E14" fx_mid 16)") fx_mid+0x10 ($E14)
    #2  $(printf '0x%016x' "$(sym14 $BL "$L14" fxlib_entry 16)") fxlib_entry+0x10 ($L14)
    #3  $(printf '0x%016x' "$(sym14 $BE "$E14" main 16)") main+0x10 ($E14)
EOF
	diff -u "$W/want" "$W/got"
	# the waiter's own stack is still its own
	has_re "$W/out" "^  user stack:$"
	has_re "$W/out" "^    #0  0x[0-9a-f]{16} fx_wait\+0x0 \($E14\)$"
	grep -v "stalls shown" "$W/out" > "$W/sorted.txt"
	run 0 --offline --stream "$W/j.bin"
	grep -v "stalls shown" "$W/out" | diff -u "$W/sorted.txt" -
	"$BIN" --offline --stream - < "$W/j.bin" > "$W/out" 2> "$W/err"
	submit_block 1.012345000 | diff -u "$W/want" -
	run 0 --offline -F json "$W/j.bin"
	json_ok "$W/out"
	eq "$(jq_ "$W/out" 'd["stalls"][0]["ahead"], {k: v for k, v in d["stalls"][0]["submit"].items() if k not in ("ustack", "wall_time")}')" \
		"{'count': 1, 'more': False} {'status': 'recorded', 'cpu': 1, 'seq': 4, 'start_ns': 1000000000, 'queued_ns': 12345000, 'pid': 201, 'tid': 201, 'comm': 'vk-client', 'engine': {'class': 'rcs', 'class_id': 0, 'instance': 0}, 'fence': {'context': '0xc', 'seqno': 345}, 'flags': ['engine', 'fence'], 'caller': None}"
	eq "$(jq_ "$W/out" '[(f["symbol"], f["cfi"]) for f in d["stalls"][0]["submit"]["ustack"]], d["stalls"][0]["flags"], d["inputs"][0]["submit_records"], d["inputs"][0]["submit_lost"]["total"]')" \
		"[('fx_tail', False), ('fx_mid', False), ('fxlib_entry', False), ('main', False)] ['engine', 'fence', 'submitted', 'ahead'] 1 0"
	# the submit record's caller: a kernel frame, as the stall's
	{
		echo 'header version_minor=4 map_max=4 kernel_anchor_addr=0xffffffff81000000'
		sub14 cpu=1 start=1000000000 fence=0xc:345 caller=0xffffffff81000105
		stall14 cpu=0 start=1012345000 engine=0:0 fence=0xc:345
	} | mk "$W/jc.bin"
	run 0 --offline --kallsyms "$KS" -F json "$W/jc.bin"
	eq "$(jq_ "$W/out" 'd["stalls"][0]["submit"]["caller"]')" \
		"{'addr': '0xffffffff81000105', 'symbol': 'schedule', 'offset': '0x5', 'module': None, 'module_offset': None, 'reason': None, 'file': None, 'line': None}"
}

# "ahead" past the kernel's count; without AHEAD it is not shown
t_v14_ahead() {
	{
		echo 'header version_minor=4 map_max=4'
		sub14 cpu=0 start=1000 fence=0xc:1
		sub14 cpu=0 start=1001 fence=0xc:2
		stall14 cpu=0 start=2000 engine=2:1 fence=0xc:1 ahead=0xffff
		stall14 cpu=0 start=3000 engine=2:1 fence=0xc:2
		stall14 cpu=0 start=4000 engine=2:1 fence=0xc:3 ahead=0
	} | mk "$W/a.bin"
	run 0 --offline "$W/a.bin"
	has_re "$W/out" "^  submitted by vk-client\[201/201\] 0\.001 ms before the wait, cpu 0 seq 0; more than 1024 requests ahead on vcs1$"
	has_re "$W/out" "^  submitted by vk-client\[201/201\] 0\.001 ms before the wait, cpu 0 seq 1$"
	has_re "$W/out" "^  submitted: not recorded; 0 requests ahead on vcs1$"
	run 0 --offline -F json "$W/a.bin"
	eq "$(jq_ "$W/out" '[s["ahead"] for s in d["stalls"]]')" \
		"[{'count': 1024, 'more': True}, None, {'count': 0, 'more': False}]"
}

# SUBMITTED, and no submit record of the fence: it was overwritten, and the
# submit CPU table counts it; the losses shown apart from the stalls'
t_v14_gone() {
	{
		echo 'header version_minor=4 map_max=4'
		echo 'scpu 1 overwritten=1'
		sub14 cpu=1 seq=7 start=1000 fence=0xc:999
		stall14 cpu=0 start=1012345000 engine=0:0 fence=0xc:345 flags=0x4000
	} | mk "$W/g.bin"
	run 0 --offline "$W/g.bin"
	has "$W/out" "# no stalls lost"
	has "$W/out" "# LOST 1 submit records: overwritten 1, torn 0, dropped 0 (of 2 recorded)"
	submit_block 1.012345000 > "$W/got"
	eq "$(cat "$W/got")" "  submitted: record gone (overwritten before the log was read)"
	hasnt "$W/out" "submit stack"
	run 0 --offline -F json "$W/g.bin"
	has "$W/err" "g.bin: LOST 1 submit records (overwritten 1, torn 0, dropped 0): the submitters of some stalls are gone"
	eq "$(jq_ "$W/out" 'd["stalls"][0]["submit"]["status"], d["stalls"][0]["submit"]["pid"], d["stalls"][0]["submit"]["ustack"], d["inputs"][0]["submit_lost"], d["submit_lost"], d["lost"]["total"]')" \
		"gone None None {'overwritten': 1, 'torn': 0, 'dropped': 0, 'total': 1} {'overwritten': 1, 'torn': 0, 'dropped': 0, 'total': 1} 0"
	# two inputs: the totals add up
	run 0 --offline -F json "$W/g.bin" "$W/g.bin"
	eq "$(jq_ "$W/out" 'd["submit_lost"]["total"]')" 2
}

# no SUBMITTED, no record: the submission was not recorded; a stall
# without a fence has no submitter at all
t_v14_not_recorded() {
	{
		echo 'header version_minor=4 map_max=4'
		stall14 cpu=0 start=1012345000 engine=0:0 fence=0xc:345
		stall14 cpu=0 start=1012345001 site=2
	} | mk "$W/n.bin"
	run 0 --offline "$W/n.bin"
	submit_block 1.012345000 > "$W/got"
	eq "$(cat "$W/got")" "  submitted: not recorded"
	submit_block 1.012345001 > "$W/got"
	eq "$(cat "$W/got")" ""
	eq "$(grep -c submitted "$W/out")" 1
	run 0 --offline -F json "$W/n.bin"
	eq "$(jq_ "$W/out" '[s["submit"] and s["submit"]["status"] for s in d["stalls"]]')" "['not_recorded', None]"
}

# what must not join: another seqno, another context, a submit record that
# starts after the stall, one in another stall file of the same input
t_v14_no_false_join() {
	{
		echo 'header version_minor=4 map_max=4'
		sub14 cpu=1 start=1000 fence=0xc:344
		sub14 cpu=1 start=1001 fence=0xd:345
		sub14 cpu=1 start=1012345001 fence=0xc:345
		stall14 cpu=0 start=1012345000 engine=0:0 fence=0xc:345
	} | mk "$W/nj.bin"
	run 0 --offline "$W/nj.bin"
	hasnt "$W/out" "submitted by"
	has "$W/out" "  submitted: not recorded"
	# flagged SUBMITTED: gone, not the wrong record either
	{
		echo 'header version_minor=4 map_max=4'
		sub14 cpu=1 start=1000 fence=0xc:344
		sub14 cpu=1 start=1001 fence=0xd:345
		sub14 cpu=1 start=1012345001 fence=0xc:345
		stall14 cpu=0 start=1012345000 engine=0:0 fence=0xc:345 flags=0x4000
	} | mk "$W/nj2.bin"
	run 0 --offline -F json "$W/nj2.bin"
	eq "$(jq_ "$W/out" 'd["stalls"][0]["submit"]["status"]')" gone
	# the same start is not after the stall: it joins (queued 0 ms)
	{
		echo 'header version_minor=4 map_max=4'
		sub14 cpu=1 start=1012345000 fence=0xc:345
		stall14 cpu=0 start=1012345000 engine=0:0 fence=0xc:345
	} | mk "$W/same.bin"
	run 0 --offline "$W/same.bin"
	has "$W/out" "  submitted by vk-client[201/201] 0.000 ms before the wait, cpu 1 seq 0"
	# the submit record in the first stall file, the stall in the second
	{
		echo 'header version_minor=4 map_max=4'
		sub14 cpu=0 start=1000 fence=0xc:345
		echo end
		echo 'header version_minor=4 map_max=4'
		stall14 cpu=0 start=1012345000 engine=0:0 fence=0xc:345
	} | mk "$W/two.bin"
	run 0 --offline -F json "$W/two.bin"
	eq "$(jq_ "$W/out" 'len(d["inputs"]), d["stalls"][0]["input"], d["stalls"][0]["submit"]["status"]')" \
		"2 1 not_recorded"
}

# a seqno used again: the latest submit record not after the stall, in
# whatever order the file has them
t_v14_latest_wins() {
	{
		echo 'header version_minor=4 map_max=4'
		sub14 cpu=0 start=900000000 fence=0xc:345 | sed 's/vk-client/newer/'
		sub14 cpu=1 start=500000000 fence=0xc:345 | sed 's/vk-client/older/'
		sub14 cpu=1 start=1500000000 fence=0xc:345 | sed 's/vk-client/later/'
		stall14 cpu=0 start=1000000000 engine=0:0 fence=0xc:345
		stall14 cpu=0 start=2000000000 engine=0:0 fence=0xc:345
	} | mk "$W/l.bin"
	run 0 --offline "$W/l.bin"
	submit_block 1.000000000 | head -1 > "$W/got"
	eq "$(cat "$W/got")" "  submitted by newer[201/201] 100.000 ms before the wait, cpu 0 seq 0"
	submit_block 2.000000000 | head -1 > "$W/got"
	eq "$(cat "$W/got")" "  submitted by later[201/201] 500.000 ms before the wait, cpu 1 seq 1"
}

# A 1.3 file of the same stall records reads as before: no submit lines,
# bits 14 and 15 are no flags of 1.3 (shown in hex), ahead not read; the
# 1.4 file's stalls read the same but for what 1.4 adds
t_v14_v13_same_stalls() {
	local body
	body=$(stall14 cpu=0 start=1012345000 engine=0:0 fence=0xc:345 flags=0x4000 ahead=3)
	printf 'header version_minor=3 map_max=4\n%s\n' "$body" | mk "$W/s13.bin"
	{
		echo 'header version_minor=4 map_max=4'
		sub14 cpu=1 start=1000000000 fence=0xc:345
		echo "$body"
	} | mk "$W/s14.bin"
	# the stall record's bytes are the same in both files
	cmp <(tail -c 1224 "$W/s13.bin") <(tail -c 1224 "$W/s14.bin")
	run 0 --offline "$W/s13.bin"
	hasnt "$W/out" "submitted"
	hasnt "$W/out" "submit stack"
	hasnt "$W/out" "submit records"
	hasnt "$W/out" "ahead"
	sed 1d "$W/out" > "$W/13.txt"
	run 0 --offline "$W/s14.bin"
	sed '1d;/^# no submit records lost/d;/^  submitted by/,/^$/{/^$/!d}' "$W/out" > "$W/14.txt"
	diff -u "$W/13.txt" "$W/14.txt"
	run 0 --offline -F json "$W/s13.bin"
	eq "$(jq_ "$W/out" 'd["stalls"][0]["flags"], d["stalls"][0]["ahead"], d["stalls"][0]["submit"], d["inputs"][0]["submit_records"]')" \
		"['engine', 'fence', '0x4000', '0x8000'] None None None"
}

# --submitter: the waiter's chain root to leaf, the marker, the submitter's
# leaf to root, as offwaketime's folded stacks; the unknown ones say why
F14_MIX="header version_minor=4 map_max=4
scpu 1 overwritten=1"
mix14() {
	echo "$F14_MIX"
	sub14 cpu=1 start=1000 fence=0xc:1
	stall14 cpu=0 start=2000 engine=0:0 fence=0xc:1
	stall14 cpu=0 start=3000 engine=0:0 fence=0xc:2 flags=0x4000
	stall14 cpu=0 start=4000 engine=0:0 fence=0xc:3
	stall14 cpu=0 start=5000 site=2
}
t_v14_folded_submitter() {
	mix14 | mk "$W/m.bin"
	run 0 --offline -F folded --folded-root=comm --submitter "$W/m.bin"
	cat > "$W/want" <<'EOF'
app;main;fx_wait;[submit not recorded] 2000
app;main;fx_wait;[submit record gone] 2000
app;main;fx_wait;[submitted by vk-client];fx_tail;fx_mid;fxlib_entry;main 2000
app;main;fx_wait;[submitter unknown] 2000
EOF
	diff -u "$W/want" "$W/out"
	# without the option: the waiter's stacks alone
	run 0 --offline -F folded --folded-root=comm "$W/m.bin"
	eq "$(cat "$W/out")" "app;main;fx_wait 8000"
	# the flame graph has the marker and the submitter's frames
	run 0 --offline -F svg --submitter "$W/m.bin"
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$W/out"
	has "$W/out" 'data-name="[submitted by vk-client]"'
	has "$W/out" 'data-name="fxlib_entry"'
	# a file before 1.4: every submitter unknown
	run 1 --offline -F folded --folded-root=comm --submitter "$W/golden.bin"
	eq "$(grep -vc '\[submitter unknown\] [0-9]*$' "$W/out")" 0
}

t_v14_summary_submitter() {
	mix14 | mk "$W/m.bin"
	run 0 --offline summary --submitter "$W/m.bin"
	sed -n '/^By user stack/,/^$/p' "$W/out" > "$W/got"
	cat > "$W/want" <<'EOF'
By user stack and submitter (top 4 of 4):
   count     total_ms     max_ms     p50_ms     p99_ms  stack, then the submitter's (innermost first)
       1        2.000      2.000      2.000      2.000  e.g. app[100]
                                                          fx_wait
                                                          main
                                                          [submit not recorded]
       1        2.000      2.000      2.000      2.000  e.g. app[100]
                                                          fx_wait
                                                          main
                                                          [submit record gone]
       1        2.000      2.000      2.000      2.000  e.g. app[100]
                                                          fx_wait
                                                          main
                                                          [submitted by vk-client]
                                                          fx_tail
                                                          fx_mid
                                                          fxlib_entry
                                                          main
       1        2.000      2.000      2.000      2.000  e.g. app[100]
                                                          fx_wait
                                                          main
                                                          [submitter unknown]

EOF
	diff -u "$W/want" "$W/got"
	run 0 --offline -F json summary --submitter "$W/m.bin"
	eq "$(jq_ "$W/out" '[(g["stack"], g["submitter"]) for g in d["stacks"]][2]')" \
		"(['main', 'fx_wait'], ['[submitted by vk-client]', 'main', 'fxlib_entry', 'fx_mid', 'fx_tail'])"
	# without it: one group, no submitter
	run 0 --offline -F json summary "$W/m.bin"
	eq "$(jq_ "$W/out" '[(g["stack"], g["submitter"], g["count"]) for g in d["stacks"]]')" \
		"[(['main', 'fx_wait'], None, 4)]"
}

# diff --submitter: rows per submitter's stack; folded, the two columns
t_v14_diff_submitter() {
	local i
	for i in 1 2 3; do
		mix14 | mk "$W/do$i.bin"
		mix14 | sed "/fence=0xc:1 /s/dur=2000000/dur=$((4000000 + i * 1000))/" | mk "$W/dn$i.bin"
	done
	run 1 --offline diff --submitter "$W"/do?.bin -- "$W"/dn?.bin
	has_re "$W/out" "site/submitter$"
	eq "$(awk '/ submitter \[submitted by vk-client\];main;fxlib_entry;fx_mid;fx_tail$/ {print $1, $2, $7}' "$W/out")" \
		"1.0 1.0 +2.002"
	eq "$(grep -c ' submitter ' "$W/out")" 4
	hasnt "$W/out" " stack "
	run 1 --offline -F json diff --submitter "$W"/do?.bin -- "$W"/dn?.bin
	eq "$(jq_ "$W/out" 'sorted((r["key"], round(r["delta"])) for r in d["rows"] if r["kind"] == "submitter")')" \
		"[('[submit not recorded]', 0), ('[submit record gone]', 0), ('[submitted by vk-client];main;fxlib_entry;fx_mid;fx_tail', 2002000), ('[submitter unknown]', 0)]"
	run 1 --offline -F folded --folded-root=comm diff --submitter "$W"/do?.bin -- "$W"/dn?.bin
	has "$W/out" "app;main;fx_wait;[submitted by vk-client];fx_tail;fx_mid;fxlib_entry;main 2000 4002"
	has "$W/out" "app;main;fx_wait;[submit record gone] 2000 2000"
	# without it, the waiter's stacks as before
	run 1 --offline diff "$W"/do?.bin -- "$W"/dn?.bin
	eq "$(grep -c ' submitter ' "$W/out")" 0
	has_re "$W/out" " stack main;fx_wait$"
}

# ------------------------------------------------------------------ bad input
# The submit section of a 1.4 file: each problem refused, exit 2, the file
# and the byte offset named.  The minimal file: one CPU; header 344, CPU
# table at 344, submit CPU table at 392, submit records at 440 (1224 bytes
# each: map_max 4), then the stall records.
B14='header version_minor=4 map_max=4'
SUB14='sub cpu=0 start=1 fence=1:1 u=0x1000,0x2000'
REC14='rec cpu=0 start=2 dur=10 fence=1:1'

t_v14_bad_submit_record_size() {
	printf '%s submit_record_size=712\n%s\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" 336 "submit_record_size 712 invalid (minimum 1224: maps_offset 712 + 4 maps; multiple of 8)"
	printf '%s submit_record_size=1228 records_offset=1672\n%s\n%s\n' "$B14" "$SUB14" "$REC14" |
		mk "$W/b.bin"
	bad "$W/b.bin" 336 "submit_record_size 1228 invalid"
}

t_v14_bad_layout() {
	# the submit records run into the stall records
	printf '%s records_offset=1000\n%s\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" 328 "1 submit records of 1224 bytes from offset 440 end past records_offset 1000"
	# the submit CPU table over the CPU table
	printf '%s submit_cpu_table_offset=368\n%s\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" 312 "submit_cpu_table_offset 368 not between the CPU table's end 392 and records_offset 1640"
	# the submit records over the submit CPU table
	printf '%s submit_records_offset=392\n%s\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" 320 "the submit records [392, 1616) overlap the submit CPU table [392, 440)"
	# misaligned
	printf '%s submit_records_offset=444 records_offset=1672\n%s\n%s\n' "$B14" "$SUB14" "$REC14" |
		mk "$W/b.bin"
	bad "$W/b.bin" 320 "submit_records_offset 444 not between"
	# the submit CPU table runs into the stall records
	printf '%s records_offset=1664 submit_cpu_table_offset=1640\n%s\n%s\n' "$B14" "$SUB14" "$REC14" |
		mk "$W/b.bin"
	bad "$W/b.bin" 312 "the submit CPU table (1 entries from 1640) ends at 1688, past records_offset 1664"
}

t_v14_bad_counts() {
	# the submit CPU table emits none of the file's one submit record
	printf '%s\nscpu 0 emitted=0 recorded=0\n%s\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" 328 "submit_record_count 1 != 0 submit records emitted by the submit CPU table"
	# ... or more than the header has
	printf '%s\nscpu 0 emitted=2 recorded=2\n%s\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" 400 "submit cpu 0: emitted counts exceed submit_record_count 1"
	printf '%s\nscpu 0 recorded=10 overwritten=2\n%s\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" 392 "submit cpu 0: recorded 10 != emitted 1 + overwritten 2 + torn 0"
	printf '%s\nscpu 0\nscpu 1 id=0\n%s\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" $((392 + 48 + 48 + 40)) "submit CPU table not in ascending CPU order (cpu 0 after 0)"
}

# the kernel's counts of submit records must fit 64 bits, in a file and
# over the files of a command, as the stalls'
t_v14_bad_count_overflow() {
	printf '%s\nscpu 0 recorded=0xffffffffffffffff overwritten=0xfffffffffffffffe\nscpu 1 recorded=2 overwritten=2\n%s\n%s\n' \
		"$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	# two CPUs: the submit CPU table at 440
	bad "$W/b.bin" $((440 + 48)) "submit cpu 1: recorded 2: the submit CPU table's counts of submit records overflow 64 bits"
	printf '%s\nscpu 0 recorded=0x8000000000000000 overwritten=0x7fffffffffffffff\n%s\n%s\n' \
		"$B14" "$SUB14" "$REC14" | mk "$W/h.bin"
	run 1 --offline "$W/h.bin"
	has "$W/out" "# LOST 9223372036854775807 submit records"
	cat "$W/h.bin" "$W/h.bin" > "$W/hh.bin"
	bad "$W/hh.bin" $(($(stat -c %s "$W/h.bin") + 392)) \
		"the submit CPU table's counts of submit records, with those of the stall files before it, overflow 64 bits"
}

# each submit record: its site, no snapshot, and a stall record's checks
t_v14_bad_submit_records() {
	printf '%s\n%s site=1\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" $((440 + 86)) "submit record 0: site 1, not submit (7)"
	printf '%s\n%s\n%s\npoke %d 4 16\n' "$B14" "$SUB14" "$REC14" $((440 + 648)) | mk "$W/b.bin"
	bad "$W/b.bin" $((440 + 648)) "submit record 0: ustack_size 16, not 0 (a submit record has no stack snapshot)"
	# a map that ends before it starts
	printf '%s\n%s\nmap start=0x2000 end=0x1000\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" $((440 + 712)) "submit record 0: map 0: start 0x2000 not below end 0x1000"
	# a frame in a map the record does not have
	printf '%s\n%s\nmap start=0x1000 end=0x3000\n%s\npoke %d 1 3\n' "$B14" "$SUB14" "$REC14" \
		$((440 + 680 + 1)) | mk "$W/b.bin"
	bad "$W/b.bin" $((440 + 681)) "submit record 0: ustack_map[1] 3: no such map (map_count 1)"
	printf '%s\n%s seq=5\n%s seq=5\n%s\n' "$B14" "$SUB14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" $((440 + 1224)) "submit record 1: seq 5 not after 5 on cpu 0"
	printf '%s\n%s udepth=33\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	bad "$W/b.bin" $((440 + 92)) "submit record 0: ustack_depth 33 exceeds ustack_max 32"
	# --stream reads the submit records too
	printf '%s\n%s site=1\n%s\n' "$B14" "$SUB14" "$REC14" | mk "$W/b.bin"
	run 2 --offline --stream "$W/b.bin"
	has "$W/err" "b.bin: offset $((440 + 86)): submit record 0: site 1, not submit (7)"
}

# Every prefix of a 1.4 file is refused cleanly (exit 2, an offset)
t_v14_bad_truncated_everywhere() {
	printf '%s\n%s\n%s\n%s\n' "$B14" "$SUB14" "$SUB14" "$REC14" | mk "$W/full.bin"
	local size n rc
	size=$(stat -c %s "$W/full.bin")
	for n in $(seq 0 97 $((size - 1))) 343 391 439 $((size - 1)); do
		head -c "$n" "$W/full.bin" > "$W/cut.bin"
		for s in "" --stream; do
			rc=0
			"$BIN" --offline $s "$W/cut.bin" > /dev/null 2> "$W/err" || rc=$?
			[ $rc = 2 ] || { echo "prefix $n $s: exit $rc"; cat "$W/err"; return 1; }
			grep -q "cut.bin: offset [0-9]*: " "$W/err" || { echo "prefix $n $s: no offset"; cat "$W/err"; return 1; }
		done
	done
}

# record: the maps of the submitters' processes too, for a submit record
# without maps of its own (the mmap lock not taken); the archive then names
# its frames after the process has gone
t_v14_record_submitter() {
	local u
	spawn "$FX/plain/fx-pie"
	u="$(fxaddr pc),$(fxaddr fx_tail),$(fxaddr fx_mid),$(fxaddr fxlib_static),$(fxaddr fxlib_entry),$(fxaddr main)"
	{
		echo "header version_minor=4 map_max=4 $BOOT"
		echo "sub cpu=0 start=1000 pid=$FXPID tgid=$FXPID comm=fx fence=0xc:1 u=$u"
		echo "rec cpu=0 start=2000 dur=1000 pid=4194304 tgid=4194304 comm=waiter fence=0xc:1"
	} | mk "$W/rs.bin"
	run 0 record -o "$W/rs.ar" "$W/rs.bin"
	kill "$FXPID"
	wait "$FXPID" 2>/dev/null || true
	run 0 --kallsyms "$KS" "$W/rs.ar"
	has "$W/out" "  submitted by fx[$FXPID/$FXPID] 0.001 ms before the wait, cpu 0 seq 0"
	sed -n '/^  submit stack:$/,$p' "$W/out" > "$W/sub.txt"
	expect_fx_stack "$W/sub.txt" fx-pie
}
