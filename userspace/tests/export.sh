# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The formats other tools open (issue 25; sourced by run.sh): -F pprof read
# by Debian's "go tool pprof" and held to summary and diff, symbolized by
# pprof itself from a build-id directory; -F perf-script held to the log and
# to the layout of a real "perf script"; -F trace-event held to the log by
# the structural check (tests/export/trace_check.py), which is shown to
# fail when a slice or a flow is wrong.  Format 1.4 (sx.bin): pprof's
# submit labels held to the report's join and summary --submitter, the
# timeline's submit slices and flows to the join.  speedscope in Chromium
# reads all three, and the 1.4 timeline, in check.sh
# (tests/export/speedscope.sh), from the files these tests leave in
# $W/export.

EXP=$HERE/export
EXW=$W/export
rm -rf "$EXW"
mkdir -p "$EXW/none"
cp -r "$FX/ustack" "$EXW/u"
"$EXW/u/fp/ustack-gen" plain "$EXW/fp.bin"
"$EXW/u/nofp/ustack-gen" plain "$EXW/nofp.bin"
"$EXW/u/fp/ustack-gen" anon "$EXW/anon.bin"

# kframes IN OUT CTX SEQNO: a copy of a generator's 1.2 file whose stall also
# has kernel frames (schedule, i915_request_wait, i915_gem_wait_ioctl of
# kallsyms.golden, "_stext" as the anchor) and waited on fence CTX:SEQNO of
# rcs0
kframes() {
	python3 - "$@" <<'PY'
import struct, sys
src, dst, ctx, seqno = sys.argv[1:]
b = bytearray(open(src, "rb").read())
r = 360                                     # ustack-gen: the record
struct.pack_into("<Q", b, 96, 0xffffffff81000000)   # header kernel_anchor_addr
b[128:135] = b"_stext\0"                    # header kernel_anchor
for i, a in enumerate((0xffffffff81000105, 0xffffffffc0a00234, 0xffffffffc0a00612)):
    struct.pack_into("<Q", b, r + 128 + 8 * i, a)
b[r + 91] = 3                               # kstack_depth
struct.pack_into("<QQ", b, r + 32, int(ctx), int(seqno))  # fence
b[r + 89] = b[r + 90] = 0                   # rcs0
struct.pack_into("<H", b, r + 94, struct.unpack_from("<H", b, r + 94)[0] | 0x30)
open(dst, "wb").write(b)
PY
}
kframes "$EXW/fp.bin" "$EXW/fpk.bin" 7 1
kframes "$EXW/nofp.bin" "$EXW/nofpk.bin" 7 2

# The log the formats are compared on: the golden dump (kernel frames named
# by kallsyms.golden, user frames without maps, losses, a kernel thread, a
# stall without user stack, odd names), the generator's stalls (user frames
# named by build-id from the record's maps, CFI, anonymous code), one of
# them with kernel frames too and twice
cat "$W/golden.bin" "$EXW/fpk.bin" "$EXW/nofpk.bin" "$EXW/anon.bin" "$EXW/fpk.bin" > "$EXW/mix.bin"
# 14.120 ms of golden.bin and 4 stalls of 2 ms
MIX_NS=22120000

# pp OUT ARGS...: Debian's go tool pprof, its standard output in OUT
pp() {
	local out=$1
	shift
	command -v go > /dev/null || { echo "no go: apt-get install golang-go (userspace/DEPENDS)"; return 1; }
	HOME=$EXW PPROF_BINARY_PATH=$EXW/none PPROF_TMPDIR=$EXW go tool pprof "$@" > "$out" 2> "$out.err" ||
		{ echo "go tool pprof $* failed:"; cat "$out.err"; return 1; }
}

# the reader's own view of mix.bin: JSON and text report, summary
mix_reports() {
	run 1 --offline --kallsyms "$KS" -F json "$EXW/mix.bin"
	cp "$W/out" "$EXW/mix.json"
	run 1 --offline --kallsyms "$KS" "$EXW/mix.bin"
	cp "$W/out" "$EXW/mix.txt"
	run 1 --offline --kallsyms "$KS" summary -F json --top 1000 "$EXW/mix.bin"
	cp "$W/out" "$EXW/mix.summary.json"
}

# ------------------------------------------------------------------ pprof

t_pprof_top_agrees_with_summary() {
	mix_reports
	run 1 --offline --kallsyms "$KS" -F pprof -o "$EXW/mix.pb.gz" "$EXW/mix.bin"
	[ ! -s "$W/out" ]
	has "$W/err" "LOST 6 stalls"	# on stderr, never in the profile's bytes
	[ "$(head -c 2 "$EXW/mix.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]	# gzip
	pp "$EXW/top.wait" -top -unit=ns -nodefraction=0 -nodecount=1000000 "$EXW/mix.pb.gz"
	pp "$EXW/top.count" -top -sample_index=stalls -nodefraction=0 -nodecount=1000000 "$EXW/mix.pb.gz"
	python3 "$EXP/pprof_check.py" top "$EXW/mix.json" "$EXW/mix.summary.json" \
		"$EXW/top.wait" "$EXW/top.count"
	has "$EXW/top.wait" "Showing nodes accounting for ${MIX_NS}ns, 100% of ${MIX_NS}ns total"
	has "$EXW/top.count" "Showing nodes accounting for 10, 100% of 10 total"
	# by hand, two rows: i915_request_wait is in 5 stalls (13 ms of golden,
	# 3 generator stalls), the innermost of one; fake_ioctl the innermost user
	# frame of the anon stall only (the others have kernel frames)
	has_re "$EXW/top.wait" "^ +9000000ns +[0-9.]+% +[0-9.]+% +19000000ns +[0-9.]+%  i915_request_wait$"
	has_re "$EXW/top.wait" "^ +2000000ns +[0-9.]+% +[0-9.]+% +8000000ns +[0-9.]+%  fake_ioctl$"
	has "$EXW/top.wait" "Type: wait"
	# summary -F pprof is the same profile
	run 1 --offline --kallsyms "$KS" summary -F pprof -o "$EXW/sum.pb.gz" "$EXW/mix.bin"
	cmp "$EXW/mix.pb.gz" "$EXW/sum.pb.gz"
}

t_pprof_traces_agree_with_summary() {
	mix_reports
	run 1 --offline --kallsyms "$KS" -F pprof -o "$EXW/mix.pb.gz" "$EXW/mix.bin"
	local hide
	hide=$(python3 "$EXP/pprof_check.py" hide "$EXW/mix.json")
	pp "$EXW/traces.wait" -traces -unit=ns -hide="$hide" "$EXW/mix.pb.gz"
	pp "$EXW/traces.count" -traces -sample_index=stalls -hide="$hide" "$EXW/mix.pb.gz"
	python3 "$EXP/pprof_check.py" traces "$EXW/mix.summary.json" "$EXW/traces.wait" \
		"$EXW/traces.count"
	# and the whole stacks, kernel frames first, with their labels
	pp "$EXW/traces.all" -traces -unit=ns "$EXW/mix.pb.gz"
	python3 - "$EXW/traces.all" <<'PY'
import sys
t = open(sys.argv[1]).read()
want = """      comm:  ustack-gen
      site:  request_wait
    engine:  rcs0
       pid:  """
assert t.count(want) == 2, t
want = """ 4000000ns   schedule
             i915_request_wait
             i915_gem_wait_ioctl
             fake_ioctl
             b_wait
             a_submit
             run_frame
             main
             __libc_start_call_main
             __libc_start_main@@GLIBC_2.34
             _start
"""
assert want in t, t
PY
}

t_pprof_sites_agree_with_summary() {
	mix_reports
	run 1 --offline --kallsyms "$KS" -F pprof -o "$EXW/mix.pb.gz" "$EXW/mix.bin"
	pprof_sites "$EXW/mix.summary.json" "" "$EXW/mix.pb.gz" > "$EXW/sites.txt"
	python3 "$EXP/pprof_check.py" sites "$EXW/mix.summary.json" "$EXW/sites.txt"
	# golden's 4 ms in 2 stalls, the generator's 4 stalls of 2 ms
	has "$EXW/sites.txt" "request_wait 12000000 6"
}

# pprof_sites DOC.json BASE PROFILE: "SITE WAIT COUNT" of pprof -tagfocus for
# each site DOC names (BASE: a -diff_base profile, or "")
pprof_sites() {
	local site w c
	for site in $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(r["key"] for r in d["rows"] if r["kind"] == "site") if "rows" in d
      else " ".join(g["site"] for g in d["sites"]))' "$1"); do
		pp "$EXW/tf.w" -top -unit=ns -nodefraction=0 ${2:+-diff_base="$2"} \
			-tagfocus="site=^$site\$" "$3"
		pp "$EXW/tf.c" -top -sample_index=stalls -nodefraction=0 ${2:+-diff_base="$2"} \
			-tagfocus="site=^$site\$" "$3"
		w=$(sed -n 's/^Showing nodes accounting for \(-\?[0-9]*\)\(ns\)\?, .*/\1/p' "$EXW/tf.w")
		c=$(sed -n 's/^Showing nodes accounting for \(-\?[0-9]*\), .*/\1/p' "$EXW/tf.c")
		echo "$site ${w:-0} ${c:-0}"
	done
}

t_pprof_diff_base_agrees_with_diff() {
	# OLD: the golden dump, a generator stall and 3 ms at fence_wait; NEW:
	# the same without the fence_wait, three generator stalls more
	printf 'header kernel_anchor_addr=0xffffffff81000000\nrec cpu=0 start=1 dur=3000000 site=3 pid=900 tgid=900 comm=shrinks k=0xffffffff81000105\n' |
		mk "$EXW/gone.bin"
	cat "$W/golden.bin" "$EXW/fpk.bin" "$EXW/gone.bin" > "$EXW/old.bin"
	cat "$W/golden.bin" "$EXW/fpk.bin" "$EXW/fpk.bin" "$EXW/nofpk.bin" "$EXW/anon.bin" > "$EXW/new.bin"
	run 1 --offline --kallsyms "$KS" -F pprof -o "$EXW/old.pb.gz" "$EXW/old.bin"
	run 1 --offline --kallsyms "$KS" -F pprof -o "$EXW/new.pb.gz" "$EXW/new.bin"
	run 1 --offline --kallsyms "$KS" diff -F json --top 1000 "$EXW/old.bin" "$EXW/new.bin"
	cp "$W/out" "$EXW/diff.json"
	local hide
	hide=$(python3 "$EXP/pprof_check.py" hide "$EXW/mix.json" 2> /dev/null ||
		{ mix_reports; python3 "$EXP/pprof_check.py" hide "$EXW/mix.json"; })
	pp "$EXW/dtop" -top -unit=ns -nodefraction=0 -nodecount=1000000 \
		-diff_base="$EXW/old.pb.gz" "$EXW/new.pb.gz"
	pp "$EXW/dtr.wait" -traces -unit=ns -hide="$hide" -diff_base="$EXW/old.pb.gz" "$EXW/new.pb.gz"
	pp "$EXW/dtr.count" -traces -sample_index=stalls -hide="$hide" \
		-diff_base="$EXW/old.pb.gz" "$EXW/new.pb.gz"
	python3 "$EXP/pprof_check.py" diff "$EXW/diff.json" "$EXW/dtop" "$EXW/dtr.wait" "$EXW/dtr.count"
	pprof_sites "$EXW/diff.json" "$EXW/old.pb.gz" "$EXW/new.pb.gz" > "$EXW/dsites.txt"
	python3 "$EXP/pprof_check.py" sites "$EXW/diff.json" "$EXW/dsites.txt"
	# +3 stalls of 2 ms, -1 of 3 ms
	has "$EXW/dtop" "Showing nodes accounting for 3000000ns"
	has "$EXW/dsites.txt" "fence_wait -3000000 -1"
	has "$EXW/dsites.txt" "request_wait 6000000 3"
}

# The record's maps are the profile's mappings: start, end, file offset,
# build-id, path, for every file a frame lies in
t_pprof_mappings_are_the_records() {
	run 0 --offline -F pprof -o "$EXW/fp.pb.gz" "$EXW/fp.bin"
	pp "$EXW/raw" -raw "$EXW/fp.pb.gz"
	python3 - "$EXW/fp.bin" "$EXW/raw" <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
r0 = 360
n = int.from_bytes(b[r0 + 652:r0 + 654], "little")
maps = set()
for i in range(n):
    m = b[r0 + 712 + 128 * i:r0 + 712 + 128 * (i + 1)]
    start, end, off = (int.from_bytes(m[k:k + 8], "little") for k in (0, 8, 16))
    bid = m[24:24 + m[44]].hex()
    name = m[48:].split(b"\0")[0].decode()
    maps.add("0x%x/0x%x/0x%x %s %s [FN]" % (start, end, off, name, bid))
raw = open(sys.argv[2]).read().split("Mappings\n")[1]
got = {re.sub(r"^\d+: ", "", l).strip() for l in raw.splitlines() if l.strip()}
assert got and got <= maps, (got, maps)
files = {g.split()[1].rsplit("/", 1)[-1] for g in got}
assert files == {"libustb.so", "libusta.so", "ustack-gen", "libc.so.6"}, files
print("%d mappings, each one of the record's %d" % (len(got), len(maps)))
PY
}

# The reader could not find the files (another machine): its frames keep
# placeholders and their mappings say they have no functions; pprof then
# names them itself from a build-id directory.  Debian's go tool pprof
# cannot (Go's own object reader has no build-ids: it ignores every file it
# finds by build-id), so this is pprof built from Debian's
# golang-github-google-pprof-dev, upstream's binutils-based symbolizer.
# (Built once into build/, kept between runs.)
PPROF_UP=$HERE/../build/pprof-upstream
pprof_upstream() {
	[ -d /usr/share/gocode/src/github.com/google/pprof ] ||
		{ echo "no golang-github-google-pprof-dev (userspace/DEPENDS)"; return 1; }
	[ -x "$PPROF_UP" ] && [ "$PPROF_UP" -nt /usr/share/gocode/src/github.com/google/pprof/pprof.go ] &&
		return 0
	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$HERE/../build/gocache GOFLAGS= \
		go build -o "$PPROF_UP.tmp" github.com/google/pprof
	mv "$PPROF_UP.tmp" "$PPROF_UP"
}

# bid_dir DIR FILE...: FILE copied to DIR/BUILD-ID/NAME, pprof's layout
bid_dir() {
	local d=$1 f id
	shift
	for f in "$@"; do
		id=$(readelf -n "$f" | awk '/Build ID:/ { print $3 }')
		mkdir -p "$d/$id"
		cp "$f" "$d/$id/"
	done
}

t_pprof_symbolizes_by_build_id() {
	pprof_upstream
	rm -rf "$EXW/far" "$EXW/bids"
	cp -r "$EXW/u/fp" "$EXW/far"
	"$EXW/far/ustack-gen" plain "$EXW/far.bin"
	bid_dir "$EXW/bids" "$EXW/far/libustb.so" "$EXW/far/libusta.so" "$EXW/far/ustack-gen"
	rm -rf "$EXW/far"
	run 1 --offline -F pprof -o "$EXW/far.pb.gz" "$EXW/far.bin"
	pp "$EXW/raw" -raw "$EXW/far.pb.gz"
	# no file, no CFI: the frame-pointer chain, placeholders, and the
	# mappings of the missing files without [FN]
	has_re "$EXW/raw" "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x1000 $EXW/far/libustb.so [0-9a-f]{40} *$"
	has_re "$EXW/raw" "/libc.so.6 [0-9a-f]{40} \[FN\]$"
	pp "$EXW/tr" -traces "$EXW/far.pb.gz"
	has "$EXW/tr" "[libustb.so]"
	HOME=$EXW PPROF_BINARY_PATH=$EXW/bids "$PPROF_UP" -traces "$EXW/far.pb.gz" > "$EXW/tr2" 2> "$EXW/tr2.err"
	python3 - "$EXW/tr2" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
frames = re.search(r"\n +\S+   (\S+)\n((?: {13}\S.*\n)*)", t)
got = [frames.group(1)] + [l.strip() for l in frames.group(2).splitlines()]
want = ["fake_ioctl", "run_frame", "main", "__libc_start_call_main"]
assert got == want, (got, t)
print("pprof named", got)
PY
}

# A return address whose call ends its function (fx_tail calls a noreturn
# function, so its return address is fx_mid+0): the location is the
# address minus one, so pprof's own symbolizer says fx_tail, as the reader
t_pprof_return_address_minus_one() {
	pprof_upstream
	rm -rf "$EXW/app" "$EXW/bids2"
	mkdir -p "$EXW/app"
	cp "$FX/plain/fx-pie" "$FX/plain/libfx.so" "$EXW/app/"
	spawn "$EXW/app/fx-pie"
	user_dump "$EXW/u.bin"
	run 0 record -o "$EXW/u.ar" "$EXW/u.bin"
	kill "$FXPID"
	wait "$FXPID" 2> /dev/null || true
	bid_dir "$EXW/bids2" "$EXW/app/fx-pie" "$EXW/app/libfx.so"
	rm -rf "$EXW/app"
	run 1 --kallsyms "$KS" -F pprof -o "$EXW/fx.pb.gz" "$EXW/u.ar"
	HOME=$EXW PPROF_BINARY_PATH=$EXW/bids2 "$PPROF_UP" -traces "$EXW/fx.pb.gz" > "$EXW/tr3" 2> "$EXW/tr3.err"
	python3 - "$EXW/tr3" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
frames = re.search(r"\n +\S+   (\S+)\n((?: {13}\S.*\n)*)", t)
got = [frames.group(1)] + [l.strip() for l in frames.group(2).splitlines()]
want = ["fx_wait", "fx_tail", "fx_mid", "fxlib_static", "fxlib_entry", "main"]
assert got == want, (got, t)
PY
}

# --lines: the file and line of each frame, as pprof -lines shows them
t_pprof_lines() {
	local call_wait
	call_wait=$(grep -n '^	fx_wait();' "$HERE/fixture/fx.c" | cut -d: -f1)
	spawn "$FX/dl/fx-dl"
	user_dump "$EXW/l.bin"
	run 1 --kallsyms "$KS" --lines -F pprof -o "$EXW/l.pb.gz" "$EXW/l.bin"
	kill "$FXPID"
	pp "$EXW/trl" -traces -lines "$EXW/l.pb.gz"
	has_re "$EXW/trl" "^ +fx_tail .*fixture/fx\.c:$call_wait$"
	pp "$EXW/rawl" -raw "$EXW/l.pb.gz"
	has_re "$EXW/rawl" "/fx-dl [0-9a-f]{40} \[FN\]\[FL\]\[LN\]$"
}

# More samples, locations, functions and strings than one encoded chunk
# holds (4096): the chunks merge into one profile
t_pprof_chunks() {
	awk 'BEGIN { print "header kernel_anchor_addr=0xffffffff81000000"
		for (i = 0; i < 9000; i++)
			printf "rec cpu=0 start=%d dur=%d pid=%d tgid=%d comm=c%d k=0xffffffff81%06x u=0x%x\n",
				i, 1000 + i, i + 1, i + 1, i % 5000, 1153 + i, 4194304 + 16 * i }' | mk "$EXW/many.bin"
	run 1 --offline --kallsyms "$KS" -F pprof -o "$EXW/many.pb.gz" "$EXW/many.bin"
	pp "$EXW/mtop" -top -unit=ns -nodefraction=0 -nodecount=1000000 "$EXW/many.pb.gz"
	pp "$EXW/mtopc" -top -sample_index=stalls -nodefraction=0 -nodecount=1000000 "$EXW/many.pb.gz"
	run 1 --offline --kallsyms "$KS" -F json "$EXW/many.bin"
	cp "$W/out" "$EXW/many.json"
	run 1 --offline --kallsyms "$KS" summary -F json "$EXW/many.bin"
	python3 "$EXP/pprof_check.py" top "$EXW/many.json" "$W/out" "$EXW/mtop" "$EXW/mtopc"
	# sum of 1000 + i for i < 9000
	has "$EXW/mtop" "Showing nodes accounting for 49495500ns, 100% of 49495500ns total"
	# a function per unresolved user address
	[ "$(grep -c '  \[unknown 0x4[0-9a-f]\{5\}\]$' "$EXW/mtop")" -ge 9000 ]
	pp "$EXW/mraw" -raw "$EXW/many.pb.gz"
	eq "$(grep -c 'comm:\[c' "$EXW/mraw")" 9000
	has "$EXW/mraw" "comm:[c4999]"
}

t_pprof_usage() {
	run 64 --offline -F pprof diff "$W/golden.bin" "$W/golden.bin"
	has "$W/err" "-F pprof is for report and summary"
	run 64 --offline -F perf-script summary "$W/golden.bin"
	has "$W/err" "-F perf-script is for report"
	run 64 --offline -F trace-event summary "$W/golden.bin"
	# binary output is not written to a terminal
	local rc=0
	script -qec "$BIN --offline -F pprof $W/golden.bin" /dev/null > "$EXW/tty.out" 2>&1 || rc=$?
	has "$EXW/tty.out" "writes a binary file: give -o FILE"
	eq "$(grep -c $'\x1f' "$EXW/tty.out")" 0
	[ $rc != 0 ]
	# comments: the inputs and the losses
	run 1 --offline --kallsyms "$KS" -F pprof -o "$EXW/g.pb.gz" "$W/golden.bin"
	pp "$EXW/com" -comments "$EXW/g.pb.gz"
	has "$EXW/com" "LOST 6 stalls: overwritten 2, torn 1, dropped 3"
	has "$EXW/com" "input $W/golden.bin @0: format 1.0, device 0000:00:02.0 (dri/0), kernel 6.12.0-test, 6 records"
}

# ------------------------------------------------------------------ perf script

t_perf_script_holds_to_the_log() {
	mix_reports
	run 1 --offline --kallsyms "$KS" -F perf-script "$EXW/mix.bin"
	cp "$W/out" "$EXW/mix.perf.txt"
	python3 "$EXP/perf_script_check.py" log "$EXW/mix.json" "$EXW/mix.perf.txt"
	# by hand: the event line and frames of the generator's stall
	has_re "$W/out" "^ustack-gen [0-9 ]{5}/[0-9]+ +\[000\] +[0-9]+\.[0-9]{6}:    2000000 i915:stall: $"
	has_re "$W/out" $'^\tffffffffc0a00234 i915_request_wait\\+0x34 \\(\\[i915\\]\\)$'
	has_re "$W/out" $'^\t {12}[0-9a-f]{4} b_wait\\+0x19 \\(.*/fp/libustb\\.so\\)$'
	has_re "$W/out" $'^\t {4}7[0-9a-f]{11} \\[unknown\\] \\(\\[unknown\\]\\)$'
	has "$W/out" "vkcube gpu   500/500   [003]     8.000000:     120000 i915:stall: "
	has "$W/err" "LOST 6 stalls"
	hasnt "$W/out" "LOST 6 stalls (overwritten"
}

# A real perf script of a real capture with call chains, parsed and printed
# again by the layout rules; ours printed again by the same rules
t_perf_script_layout_is_perfs() {
	command -v perf > /dev/null || { echo "no perf: apt-get install linux-perf (userspace/DEPENDS)"; return 1; }
	perf record -q -o "$EXW/p.data" -e task-clock -c 100000 -g --sample-cpu -k CLOCK_MONOTONIC \
		-- sh -c 'head -c 30000000 /dev/zero | md5sum > /dev/null' > "$EXW/prec.log" 2>&1 ||
		{ echo "perf record failed (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)):"; cat "$EXW/prec.log"; return 1; }
	perf script -i "$EXW/p.data" -F comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso \
		> "$EXW/real.txt" 2> "$EXW/pscript.log"
	run 1 --offline --kallsyms "$KS" -F perf-script "$EXW/mix.bin"
	python3 "$EXP/perf_script_check.py" layout "$EXW/real.txt" "$W/out"
}

# ------------------------------------------------------------------ trace event

# ov.bin: waits that nest and overlap on one thread, waits of two threads on
# one fence (one piece of work), two fences at once on rcs0 (two rows)
ov_dump() {
	mk "$EXW/ov.bin" <<'EOF'
header kernel_anchor_addr=0xffffffff81000000
cpu 0
cpu 1
rec cpu=0 start=10000000 dur=10000000 pid=701 tgid=700 comm=app site=1 engine=0:0 fence=5:7 owner=700 ocomm=app k=0xffffffff81000105
rec cpu=0 start=12000000 dur=3000000 pid=701 tgid=700 comm=app site=2 engine=0:0 fence=5:7 k=0xffffffff81000105
rec cpu=0 start=18000000 dur=7000000 pid=701 tgid=700 comm=app site=1 engine=0:0 fence=5:8 k=0xffffffff81000210
rec cpu=1 start=11000000 dur=12000500 pid=702 tgid=700 comm=app:w site=1 engine=0:0 fence=5:7
rec cpu=1 start=40000000 dur=1000 pid=702 tgid=700 comm=app:w site=1 engine=0:0 fence=5:7
rec cpu=1 start=41000000 dur=1000 pid=800 tgid=800 comm=other site=3 engine=1:0
EOF
}

# trace_of NAME INPUT: the trace and the reports the check holds it to
trace_of() {
	run "${3:-1}" --offline --kallsyms "$KS" -F trace-event "$2"
	cp "$W/out" "$EXW/$1.trace.json"
	json_ok "$EXW/$1.trace.json"
	run "${3:-1}" --offline --kallsyms "$KS" -F json "$2"
	cp "$W/out" "$EXW/$1.json"
	run "${3:-1}" --offline --kallsyms "$KS" "$2"
	cp "$W/out" "$EXW/$1.txt"
}

t_trace_event_holds_to_the_log() {
	trace_of mix "$EXW/mix.bin"
	python3 "$EXP/trace_check.py" "$EXW/mix.trace.json" "$EXW/mix.json" "$EXW/mix.txt"
	ov_dump
	trace_of ov "$EXW/ov.bin" 0
	python3 "$EXP/trace_check.py" "$EXW/ov.trace.json" "$EXW/ov.json" "$EXW/ov.txt"
	# by hand: the slices of ov.bin
	python3 - "$EXW/ov.trace.json" <<'PY'
import json, sys
from decimal import Decimal
T = json.load(open(sys.argv[1]), parse_float=Decimal)
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in T["traceEvents"]
         if e["ph"] == "M" and e["name"].endswith("_name")}
got = sorted((names[(e["pid"], e["tid"])], e["name"], str(e["ts"]), str(e["dur"]),
              e["args"].get("waits")) for e in T["traceEvents"] if e["ph"] == "X")
want = sorted([
    ("app", "request_wait", "10000.000", "10000.000", None),
    ("app", "active_wait", "12000.000", "3000.000", None),
    ("app 701 (overlapping waits)", "request_wait", "18000.000", "7000.000", None),
    ("app:w", "request_wait", "11000.000", "12000.500", None),
    ("app:w", "request_wait", "40000.000", "1.000", None),
    ("other", "object_fence_wait", "41000.000", "1.000", None),
    ("rcs0", "fence 5:7", "10000.000", "13000.500", 3),
    ("rcs0", "fence 5:7", "40000.000", "1.000", 1),
    ("rcs0 (2)", "fence 5:8", "18000.000", "7000.000", 1),
    ("bcs0", "awaited work", "41000.000", "1.000", 1),
])
assert got == want, got
assert names[(0x40000000, None)] == "GPU dri/0 0000:00:02.0", names
assert T["otherData"]["clock"] == "CLOCK_MONOTONIC"
PY
}

# trace_mutate WHAT PYTHON-on-T WANT: trace_check.py of $EXW/$c.trace.json changed
# by PYTHON must fail, saying WANT (the caller's $c, $n)
trace_mutate() {
	local b=$EXW/bad-$c-$((n += 1))
	python3 - "$EXW/$c.trace.json" "$b.json" "$2" <<'PY'
import json, sys
from decimal import Decimal
T = json.load(open(sys.argv[1]), parse_float=Decimal)
ev = T["traceEvents"]
exec(sys.argv[3])
json.dump(T, open(sys.argv[2], "w"), default=str)
PY
	if python3 "$EXP/trace_check.py" "$b.json" "$EXW/$c.json" "$EXW/$c.txt" > "$b.out"; then
		echo "the check passed a trace with $1"
		return 1
	fi
	grep -qF -- "$3" "$b.out" || { echo "$1: not found: $3"; cat "$b.out"; return 1; }
	echo "$1" > "$b.what"
}

# What the check says of a trace with a slice, a piece of work, a stack
# frame or a flow wrong
t_trace_event_check_fails_when_broken() {
	ov_dump
	trace_of ov "$EXW/ov.bin" 0
	local c=ov n=0
	trace_mutate "a stall slice dropped" \
		'ev.remove([e for e in ev if e.get("cat") == "i915.stall" and e["tid"] == 702][0])' \
		"5 stall slices, 6 stalls in the log"
	trace_mutate "a work slice dropped" \
		'ev.remove([e for e in ev if e.get("name") == "fence 5:8"][0])' \
		"stall cpu 0 seq 2: 0 slices of fence 5:8 on rcs0 cover it"
	trace_mutate "a slice a nanosecond short" \
		'[e for e in ev if e.get("cat") == "i915.stall"][0]["dur"] = Decimal("9999.999")' \
		"ts 10000.000 dur 9999.999, the record's start 10000000 ns and wait 10000000 ns"
	trace_mutate "a stack frame renamed" \
		'T["stackFrames"]["1"]["name"] = "schedule+0x6"' \
		"sf gives [('kernel', 'schedule+0x6')], the report's frames [('kernel', 'schedule+0x5')]"
	trace_mutate "a flow" \
		's = [e for e in ev if e.get("cat") == "i915.stall"]; ev += [dict(ph="s", cat="i915.submit", id=1, name="submit", pid=s[0]["pid"], tid=s[0]["tid"], ts=s[0]["ts"]), dict(ph="f", bp="e", cat="i915.submit", id=1, name="submit", pid=s[1]["pid"], tid=s[1]["tid"], ts=s[1]["ts"])]' \
		"flow s 1: a flow event, the reader writes none (bind_id on slices)"
	trace_mutate "a flow's end dropped" \
		's = [e for e in ev if e.get("cat") == "i915.stall"]; ev += [dict(ph="s", cat="i915.submit", id=2, name="submit", pid=s[0]["pid"], tid=s[0]["tid"], ts=s[0]["ts"])]' \
		"flow ('i915.submit', 2): an 's' without its 'f'"
	trace_mutate "a flow on a stall without a submitter" \
		'[e for e in ev if e.get("cat") == "i915.stall"][0].update(bind_id="0x1", flow_in=True)' \
		"submit none, but its slice has flow 0x1"
	trace_mutate "overlapping slices on one track" \
		'[e for e in ev if e.get("name") == "fence 5:8"][0]["tid"] = 1' \
		"overlaps the one before without nesting"
	trace_mutate "an argument changed" \
		'[e for e in ev if e.get("cat") == "i915.stall"][0]["args"]["fence"] = "5:9"' \
		"args.fence is '5:9', the log's '5:7'"
}

t_trace_event_realtime_offset() {
	trace_of g "$W/golden.bin"
	eq "$(jq_ "$EXW/g.trace.json" 'd["otherData"]["inputs"][0]["realtime_offset_ns"]')" 1764694117000000000
	# the first slice starts at the record's CLOCK_MONOTONIC 4 s
	eq "$(jq_ "$EXW/g.trace.json" '[e["ts"] for e in d["traceEvents"] if e["ph"] == "X"][0]')" 4000000.0
}

# C++: pprof shortens the reader's demangled names by default; with
# -symbolize=none it shows them as the reader wrote them (the man page)
t_pprof_cpp_names() {
	spawn "$FX/plain/fx-cpp"
	printf 'header %s\nrec cpu=0 start=%s dur=1000 pid=%s tgid=%s u=%s,%s\n' \
		"$BOOT" "$(mono_ns)" "$FXPID" "$FXPID" "$(fxaddr pc)" "$(fxaddr ret)" | mk "$EXW/cpp.bin"
	run 0 -F pprof -o "$EXW/cpp.pb.gz" "$EXW/cpp.bin"
	kill "$FXPID"
	pp "$EXW/cpp.top" -top "$EXW/cpp.pb.gz"
	has_re "$EXW/cpp.top" "  fx::detail::wait$"
	pp "$EXW/cpp.none" -top -symbolize=none "$EXW/cpp.pb.gz"
	has_re "$EXW/cpp.none" "  fx::detail::wait\(int\)$"
}

# ------------------------------------------------------------------ submitters

# sx.bin (format 1.4, format14.sh's records): app[100] waits eight times;
# vk-client[201] submitted three of the awaited requests from two threads
# (201, 202; one request awaited by two threads of app), compositor[300/301]
# one, app[100] one itself; one submit record was overwritten (SUBMITTED:
# gone), one submission not recorded, one wait without a fence, and one
# submit record no stall awaits
sx_dump() {
	{
		echo 'header version_minor=4 map_max=4'
		echo 'scpu 1 overwritten=1'
		sub14 cpu=1 start=1000000 fence=0xc:1
		sub14 cpu=1 start=1500000 fence=0xc:2 pid=202
		sub14 cpu=1 start=2000000 fence=0xd:7 pid=301 tgid=300 comm=compositor
		sub14 cpu=1 start=18000000 fence=0xe:1 pid=100 tgid=100 comm=app
		sub14 cpu=1 start=19000000 fence=0xd:8 pid=301 tgid=300 comm=compositor
		stall14 cpu=0 start=3000000 engine=0:0 fence=0xc:1
		stall14 cpu=0 start=3500000 dur=1000000 pid=101 engine=0:0 fence=0xc:1
		stall14 cpu=0 start=6000000 dur=3000000 engine=0:0 fence=0xc:2
		stall14 cpu=0 start=10000000 dur=500000 engine=0:0 fence=0xd:7
		stall14 cpu=0 start=11000000 dur=4000000 engine=0:0 fence=0xc:3 flags=0x4000
		stall14 cpu=0 start=16000000 dur=250000 engine=0:0 fence=0xc:4
		stall14 cpu=0 start=17000000 dur=125000 site=2
		stall14 cpu=0 start=18500000 dur=700000 engine=0:0 fence=0xe:1
	} | mk "$1"
}

# -F pprof's submit labels: "pprof -tags" and "-tagfocus" per submitter and
# status hold to the report's join and to "summary --submitter"
t_pprof_submitter_agrees_with_summary() {
	sx_dump "$EXW/sx.bin"
	run 0 --offline -F json "$EXW/sx.bin"
	cp "$W/out" "$EXW/sx.json"
	run 0 --offline -F json summary --submitter --top 1000 "$EXW/sx.bin"
	cp "$W/out" "$EXW/sx.summary.json"
	run 0 --offline -F pprof -o "$EXW/sx.pb.gz" "$EXW/sx.bin"
	pp "$EXW/sx.tags" -tags -unit=ns "$EXW/sx.pb.gz"
	pp "$EXW/sx.tagsc" -tags -sample_index=stalls "$EXW/sx.pb.gz"
	local kv k v w c
	: > "$EXW/sx.focus"
	for kv in 'submitter vk-client[201]' 'submitter compositor[300]' 'submitter app[100]' \
		'submit recorded' 'submit gone' 'submit not_recorded' '- -'; do
		read -r k v <<< "$kv"
		if [ "$k" = - ]; then	# the stalls without the label
			set -- -tagignore='submit=.'
		else
			set -- -tagfocus="$k=^$(printf '%s' "$v" | sed 's/[][]/\\&/g')\$"
		fi
		pp "$EXW/sf.w" -top -unit=ns -nodefraction=0 "$@" "$EXW/sx.pb.gz"
		pp "$EXW/sf.c" -top -sample_index=stalls -nodefraction=0 "$@" "$EXW/sx.pb.gz"
		w=$(sed -n 's/^Showing nodes accounting for \([0-9]*\)ns, .*/\1/p' "$EXW/sf.w")
		c=$(sed -n 's/^Showing nodes accounting for \([0-9]*\), .*/\1/p' "$EXW/sf.c")
		echo "$k $v ${w:-0} ${c:-0}" >> "$EXW/sx.focus"
	done
	python3 "$EXP/pprof_check.py" submitters "$EXW/sx.summary.json" "$EXW/sx.json" \
		"$EXW/sx.tags" "$EXW/sx.tagsc" "$EXW/sx.focus"
	# by hand: 6 ms in 3 stalls of vk-client[201], from its threads 201 (2)
	# and 202 (1); 0.5 ms of compositor[300/301], 0.7 ms of app[100] itself
	cat > "$W/want" <<'EOF'
submitter vk-client[201] 6000000 3
submitter compositor[300] 500000 1
submitter app[100] 700000 1
submit recorded 7200000 5
submit gone 4000000 1
submit not_recorded 250000 1
- - 125000 1
EOF
	diff -u "$W/want" "$EXW/sx.focus"
	python3 - "$EXW/sx.tags" "$EXW/sx.tagsc" <<'PY'
import sys
w, c = (open(p).read() for p in sys.argv[1:])
for want in (""" submitter: Total 7200000.0ns
            6000000.0ns (83.33%): vk-client[201]
             700000.0ns ( 9.72%): app[100]
             500000.0ns ( 6.94%): compositor[300]
""", """ submit: Total 11450000.0ns
         7200000.0ns (62.88%): recorded
         4000000.0ns (34.93%): gone
          250000.0ns ( 2.18%): not_recorded
"""):
    assert want in w, (want, w)
want = """ submitter_tid: Total 5.0
                2.0 (40.00%): 201
                1.0 (20.00%): 100
                1.0 (20.00%): 202
                1.0 (20.00%): 301
"""
assert want in c, (want, c)
PY
	# a file before 1.4: none of these labels
	run 1 --offline --kallsyms "$KS" -F pprof -o "$EXW/g14.pb.gz" "$W/golden.bin"
	pp "$EXW/g.tags" -tags "$EXW/g14.pb.gz"
	hasnt "$EXW/g.tags" "submit"
	has "$EXW/g.tags" " comm: Total"
}

# -F trace-event of sx.bin: a submit slice and a flow per joined stall,
# held to the log by the check, and by hand
t_trace_event_submit_flows() {
	sx_dump "$EXW/sx.bin"
	trace_of sx "$EXW/sx.bin" 0
	python3 "$EXP/trace_check.py" "$EXW/sx.trace.json" "$EXW/sx.json" "$EXW/sx.txt" > "$EXW/sx.check" ||
		{ cat "$EXW/sx.check"; return 1; }
	has "$EXW/sx.check" "trace: 8 stall slices, 5 submit slices, 7 work slices, 7 tracks, 5 stack frames, 5 flows: as the log"
	python3 - "$EXW/sx.trace.json" <<'PY'
import json, sys
from decimal import Decimal
T = json.load(open(sys.argv[1]), parse_float=Decimal)
ev = T["traceEvents"]
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"].endswith("_name")}
# (thread, cat, ts, dur, flow end, bind_id, who)
got = [(names[(e["pid"], e["tid"])], e["pid"], e["tid"], e["cat"], str(e["ts"]), str(e["dur"]),
        "out" if e.get("flow_out") else "in" if e.get("flow_in") else None, e.get("bind_id"),
        e["args"].get("waiter") or e["args"].get("submitter") or e["args"].get("submit"))
       for e in ev if e["ph"] == "X" and e["cat"] != "i915.work"]
want = [
    ("vk-client", 201, 201, "i915.submit", "1000.000", "0.000", "out", "0x1", "app[100/100]"),
    ("app", 100, 100, "i915.stall", "3000.000", "2000.000", "in", "0x1", "vk-client[201/201]"),
    ("vk-client", 201, 201, "i915.submit", "1000.000", "0.000", "out", "0x2", "app[100/101]"),
    ("app", 100, 101, "i915.stall", "3500.000", "1000.000", "in", "0x2", "vk-client[201/201]"),
    ("vk-client", 201, 202, "i915.submit", "1500.000", "0.000", "out", "0x3", "app[100/100]"),
    ("app", 100, 100, "i915.stall", "6000.000", "3000.000", "in", "0x3", "vk-client[201/202]"),
    ("compositor", 300, 301, "i915.submit", "2000.000", "0.000", "out", "0x4", "app[100/100]"),
    ("app", 100, 100, "i915.stall", "10000.000", "500.000", "in", "0x4", "compositor[300/301]"),
    ("app", 100, 100, "i915.stall", "11000.000", "4000.000", None, None, "gone"),
    ("app", 100, 100, "i915.stall", "16000.000", "250.000", None, None, "not_recorded"),
    ("app", 100, 100, "i915.stall", "17000.000", "125.000", None, None, None),
    ("app", 100, 100, "i915.submit", "18000.000", "0.000", "out", "0x5", "app[100/100]"),
    ("app", 100, 100, "i915.stall", "18500.000", "700.000", "in", "0x5", "app[100/100]"),
]
assert got == want, got
s = [e for e in ev if e["ph"] == "X" and e["cat"] == "i915.submit"][2]
assert {k: v for k, v in s["args"].items() if k != "user_stack"} == {
    "comm": "vk-client", "pid": 201, "tid": 202, "engine": "rcs0", "fence": "12:2", "cpu": 1,
    "seq": 1, "queued_ns": 4500000, "waiter": "app[100/100]"}, s["args"]
assert [l.split()[1] for l in s["args"]["user_stack"]] == \
    ["fx_tail+0x0", "fx_mid+0x10", "fxlib_entry+0x10", "main+0x10"], s["args"]
f = T["stackFrames"]
chain, n = [], s["sf"]
while n:
    chain.append(f[str(n)]["name"].split()[0])
    n = f[str(n)].get("parent")
assert chain == ["fx_tail+0x0", "fx_mid+0x10", "fxlib_entry+0x10", "main+0x10"], chain
# the stall's own: the join
st = [e for e in ev if e["ph"] == "X" and e["cat"] == "i915.stall"]
assert [(e["args"].get("submit"), e["args"].get("queued_ns")) for e in st] == [
    ("recorded", 2000000), ("recorded", 2500000), ("recorded", 4500000), ("recorded", 8000000),
    ("gone", None), ("not_recorded", None), (None, None), ("recorded", 500000)], st
PY
}

# What the check says of a 1.4 trace with a submit slice or flow wrong
t_trace_event_submit_check_fails_when_broken() {
	sx_dump "$EXW/sx.bin"
	trace_of sx "$EXW/sx.bin" 0
	local c=sx n=0
	# (ev: the events; X(cat): the slices of cat; B(id): the slices of flow id)
	local X='X = lambda c: [e for e in ev if e.get("cat") == c]; B = lambda b: [e for e in ev if e.get("bind_id") == b]; '
	trace_mutate "a flow dropped (its binding on the wait)" \
		"${X}w = B('0x3')[1]; del w['bind_id'], w['flow_in']" \
		"stall 2 (cpu 0 seq 2, app[100/100]) joined to submit cpu 1 seq 1: its slice is the in end of no flow"
	trace_mutate "a flow dropped (both ends)" \
		"${X}"'[(e.pop("bind_id"), e.pop("flow_in", None), e.pop("flow_out", None)) for e in B("0x3")]' \
		"joined to submit cpu 1 seq 1: its slice is the in end of no flow"
	trace_mutate "a submit slice dropped" \
		"${X}ev.remove(B('0x2')[0])" \
		"stall 1 (cpu 0 seq 1, app[100/101]) joined to submit cpu 1 seq 0: flow 0x2 has 0 out ends, want 1 (the submit's slice)"
	trace_mutate "every submit slice dropped" \
		"${X}"'[ev.remove(e) for e in X("i915.submit")]' \
		"0 submit slices, 5 stalls joined to their submit records in the log"
	trace_mutate "a submit slice on the waiter's thread" \
		"${X}B('0x4')[0]['pid'] = 100; B('0x4')[0]['tid'] = 100" \
		"its submit slice is on 100/100, the submitter is 300/301"
	trace_mutate "a submit slice a nanosecond late" \
		"${X}B('0x4')[0]['ts'] = Decimal('2000.001')" \
		"its submit slice at ts 2000.001 dur 0.000, the submit record's start 2000000 ns (dur 0)"
	trace_mutate "two flows of one submit record crossed" \
		"${X}a, b = B('0x1')[1], B('0x2')[1]; a['bind_id'], b['bind_id'] = '0x2', '0x1'" \
		"stall 0 (cpu 0 seq 0, app[100/100]) joined to submit cpu 1 seq 0: submit slice args.waiter is 'app[100/101]', the log's 'app[100/100]'"
	trace_mutate "two flows of two submitters crossed" \
		"${X}a, b = B('0x1')[1], B('0x3')[1]; a['bind_id'], b['bind_id'] = '0x3', '0x1'" \
		"joined to submit cpu 1 seq 0: its submit slice is on 201/202, the submitter is 201/201"
	trace_mutate "a flow to a wait whose submit record is gone" \
		"${X}X('i915.stall')[4].update(bind_id='0x9', flow_in=True); X('i915.submit')[0].update(bind_id='0x9')" \
		"stall 4 (cpu 0 seq 4, app[100/100]): submit gone, but its slice has flow 0x9"
	trace_mutate "a flow to a wait not recorded" \
		"${X}X('i915.stall')[5].update(bind_id='0x9', flow_in=True)" \
		"submit not_recorded, but its slice has flow 0x9"
	trace_mutate "a submit slice left over" \
		"${X}"'import copy; d = copy.deepcopy(B("0x5")[0]); d["bind_id"] = "0x6"; ev.append(d)' \
		"submit slice at 18000.000 on 100/100 (flow 0x6): the out end of no joined stall's flow"
	trace_mutate "a submit slice with both ends" \
		"${X}B('0x5')[0]['flow_in'] = True" \
		"bind_id 0x5, flow_in True, flow_out True: not one end of one flow"
	trace_mutate "the submitter's stack changed" \
		"${X}"'X("i915.submit")[0]["args"]["user_stack"].pop()' \
		"submit slice args.user_stack is"
	trace_mutate "the submitter's stack frame renamed" \
		"${X}"'T["stackFrames"][str(X("i915.submit")[0]["sf"])]["name"] = "x"' \
		"submit slice sf gives"
	trace_mutate "the wait's submitter changed" \
		"${X}"'X("i915.stall")[0]["args"]["submitter"] = "vk-client[201/202]"' \
		"args.submitter is 'vk-client[201/202]', the log's 'vk-client[201/201]'"
}
