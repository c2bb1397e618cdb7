# SPDX-License-Identifier: MIT
# The reader's tests of issue 14 (sourced by run.sh, which has the harness):
# the eu-addr2line comparison suite, hostile archives, write errors, the
# UBSan inputs, the caches' budget, bounded folded and SVG output, the vDSO,
# debuginfod, and the man page held to the code.

# ------------------------------------------------------------------ eu-addr2line

# compare LABEL EXE FILE [compare.py args]: run EXE, compare FILE's frames
compare() {
	local label=$1 exe=$2 file=$3 rc=0
	shift 3
	spawn "$exe"
	# its status, not tee's
	python3 "$HERE/compare.py" --reader "$BIN" --mkstall "$MK" --work "$W" --pid "$FXPID" \
		--file "$file" --boot "$BOOT" --label "$label" --plt "$@" > "$W/cmp.out" || rc=$?
	tee -a "$W/compare-summary.txt" < "$W/cmp.out"
	kill "$FXPID"
	return "${rc:-0}"
}

M=$FX/many
t_compare_pie() { compare pie "$M/pie/many" "$M/pie/many" --min 1000; }
t_compare_nopie() { compare non-pie "$M/nopie/many" "$M/nopie/many" --min 1000; }
t_compare_shared_library() { compare libmany.so "$M/lib/many-lib" "$M/lib/libmany.so" --min 1000; }
t_compare_debuglink() { compare debuglink "$M/dl/many" "$M/dl/many" --min 1000; }
t_compare_dynsym_only() { compare dynsym-only "$M/dynsym/many-lib" "$M/dynsym/libmany.so" --min 1000; }
t_compare_minidebuginfo() { compare minidebuginfo "$M/mini/many" "$M/mini/many" --min 1000; }
t_compare_build_id() {
	# stripped; its debug file only under --symfs, by build-id
	compare debug-by-build-id "$M/bid/many" "$M/bid/many" --min 1000 \
		--reader-arg=--symfs="$M/symfs" --eu-arg=--debuginfo-path="$M/symfs/usr/lib/debug"
}
t_compare_debug_file_only() {
	# an archive, then the program is gone: only its debug file, by build-id
	local id
	mkdir -p "$W/gone"
	cp "$M/bid/many" "$W/gone/many"
	id=$(readelf -n "$W/gone/many" | awk '/Build ID/ {print $3}')
	COMPARE_BEFORE_REPORT="mv $W/gone/many $W/gone/moved" \
		compare debug-file-only "$W/gone/many" "$W/gone/many" --min 1000 \
		--archive-from "$W/gone.ar" --reader-arg=--symfs="$M/symfs" \
		--eu-offline "$M/symfs/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
}
t_compare_libc() {
	# every 4th call site of libc (about 3300), and all of ld.so, with
	# their debug files from libc6-dbg (userspace/DEPENDS)
	local libc ld rc=0
	dpkg-query -W -f='${Status}' libc6-dbg 2>/dev/null | grep -q "install ok installed" ||
		{ echo "libc6-dbg is not installed: make setup (userspace/DEPENDS)"; return 1; }
	spawn "$M/pie/many"
	libc=$(awk '$6 ~ /\/libc\.so/ {print $6; exit}' "/proc/$FXPID/maps")
	ld=$(awk '$6 ~ /\/ld-linux/ {print $6; exit}' "/proc/$FXPID/maps")
	for f in "$libc" "$ld"; do
		python3 "$HERE/compare.py" --reader "$BIN" --mkstall "$MK" --work "$W" --pid "$FXPID" \
			--file "$f" --boot "$BOOT" --label "$(basename "$f")" --plt \
			--sample "$([ "$f" = "$libc" ] && echo 4 || echo 1)" --min 1000 > "$W/cmp.out" || rc=$?
		tee -a "$W/compare-summary.txt" < "$W/cmp.out"
		[ "${rc:-0}" = 0 ] || return "$rc"
	done
	# and they really used the debug files: static functions by name
	awk '/^libc.so.6: / { n = $2; u = substr($5, 2) } END { exit !(n > 3000 && u * 100 < n) }' \
		"$W/compare-summary.txt" ||
		{ echo "over 1% of libc frames without a symbol: debug file not used?"; return 1; }
	kill "$FXPID"
}

# The alias preference is libdwfl's (dwfl_module_addrinfo()), so
# eu-addr2line's: GLOBAL over WEAK over LOCAL, then the smaller size, then
# the first in the symbol table.  perf also prefers fewer underscores.
t_alias_preference() {
	local f w
	f=$(grep -m1 -o 'weak_f[0-9]*' "$M/many.c")	# a weak alias of a global function
	f=${f#weak_}
	spawn "$M/pie/many"
	w=$(python3 -c '
import subprocess, sys
pid, exe, name = sys.argv[1:]
base = min(int(l.split("-")[0], 16) for l in open(f"/proc/{pid}/maps") if l.split()[2] == "00000000" and l.rstrip().endswith("/pie/many"))
sym = subprocess.run(["readelf", "-sW", exe], capture_output=True, text=True).stdout
addr = next(int(l.split()[1], 16) for l in sym.splitlines() if l.split()[-1:] == [name])
print(hex(base + addr + 4))' "$FXPID" "$M/pie/many" "$f")
	printf 'header %s\nrec cpu=0 start=%s dur=10 pid=%s tgid=%s u=%s\n' "$BOOT" "$(mono_ns)" \
		"$FXPID" "$FXPID" "$w" | mk "$W/a.bin"
	run 0 "$W/a.bin"
	has_re "$W/out" "#0  0x[0-9a-f]+ $f\+0x4 "	# not weak_$f
	hasnt "$W/out" "weak_"
}

# .plt entries: no symbol covers them, they are not _init's
t_plt_not_init() {
	spawn "$FX/plain/fx-pie"
	local base plt
	base=$(awk '$3 == "00000000" && $6 ~ /fx-pie$/ {split($1, a, "-"); print a[1]; exit}' "/proc/$FXPID/maps")
	plt=$(readelf -SW "$FX/plain/fx-pie" | awk '$2 == ".plt" {print $4}')
	printf 'header %s\nrec cpu=0 start=%s dur=10 pid=%s tgid=%s u=0x%x\n' "$BOOT" "$(mono_ns)" \
		"$FXPID" "$FXPID" $((0x$base + 0x$plt + 0x10)) | mk "$W/p.bin"
	run 1 "$W/p.bin"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[fx-pie\+0x$(printf %x $((0x$plt + 0x10)))\]$"
	hasnt "$W/out" "_init"
}

# ------------------------------------------------------------------ the vDSO

t_vdso() {
	spawn "$FX/plain/fx-pie"
	local lo hi addr want
	read -r lo hi < <(awk '$6 == "[vdso]" {split($1, a, "-"); print a[1], a[2]}' "/proc/$FXPID/maps")
	dd if="/proc/$FXPID/mem" of="$W/vdso.so" bs=4096 skip=$((0x$lo / 4096)) \
		count=$(((0x$hi - 0x$lo) / 4096)) 2>/dev/null
	# an address inside its clock_gettime, and eu-addr2line's name for it
	addr=$(readelf -sW --dyn-syms "$W/vdso.so" | awk '$8 ~ /^__vdso_clock_gettime(@|$)/ {print $2; exit}')
	want=$(eu-addr2line -S -e "$W/vdso.so" "0x$(printf %x $((0x$addr + 8)))" | head -1)
	printf 'header %s\nrec cpu=0 start=%s dur=10 pid=%s tgid=%s u=0x%x,0x%x\n' "$BOOT" "$(mono_ns)" \
		"$FXPID" "$FXPID" $((0x$lo + 0x$addr + 8)) $((0x$lo + 0x$addr + 9)) | mk "$W/v.bin"
	run 0 "$W/v.bin"
	has_re "$W/out" "#0  0x[0-9a-f]+ ${want%+*}\+0x8 \(\[vdso\]\)$"
	has_re "$W/out" "#1  0x[0-9a-f]+ ${want%+*}\+0x9 \(\[vdso\]\)$"
	# recorded: the archive keeps the image, the process may go
	run 0 record --no-kallsyms -o "$W/v.ar" "$W/v.bin"
	kill "$FXPID"
	wait "$FXPID" 2>/dev/null || true
	run 0 "$W/v.ar"
	has_re "$W/out" "#0  0x[0-9a-f]+ ${want%+*}\+0x8 \(\[vdso\]\)$"
	# without the image: said so
	python3 "$HERE/artool.py" "$W/v.ar" "$W/v2.ar" "buildid=[vdso]:00112233445566778899aabbccddeeff00112233"
	run 1 "$W/v2.ar"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[unknown: no vdso\]"
}

# ------------------------------------------------------------------ debuginfod

t_debuginfod() {
	# a stripped program whose debug file only a debuginfod server has
	local id port
	mkdir -p "$W/di/srv" "$W/di/app"
	cp "$M/bid/many" "$W/di/app/many"
	id=$(readelf -n "$W/di/app/many" | awk '/Build ID/ {print $3}')
	mkdir -p "$W/di/srv/buildid/$id"
	cp "$M/symfs/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" "$W/di/srv/buildid/$id/debuginfo"
	python3 -m http.server --bind 127.0.0.1 --directory "$W/di/srv" 0 > "$W/di/http.log" 2>&1 &
	local srv=$!
	trap "kill $srv 2>/dev/null || true" RETURN
	for _ in $(seq 100); do
		port=$(grep -o 'port [0-9]*' "$W/di/http.log" | awk '{print $2}')
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "http server did not start"; cat "$W/di/http.log"; return 1; }
	spawn "$W/di/app/many"
	local ret
	# inside f1, by the symbols of the unstripped build
	ret=$(python3 -c '
import subprocess, sys
pid, full = sys.argv[1:]
base = min(int(l.split("-")[0], 16) for l in open(f"/proc/{pid}/maps") if l.split()[2] == "00000000" and l.rstrip().endswith("/app/many"))
sym = subprocess.run(["readelf", "-sW", full], capture_output=True, text=True).stdout
addr = next(int(l.split()[1], 16) for l in sym.splitlines() if l.split()[-1:] == ["f1"])
print(hex(base + addr + 4))' "$FXPID" "$M/pie/many")
	printf 'header %s\nrec cpu=0 start=%s dur=10 pid=%s tgid=%s u=%s\n' "$BOOT" "$(mono_ns)" \
		"$FXPID" "$FXPID" "$ret" | mk "$W/d.bin"
	run 1 "$W/d.bin"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[many\+0x[0-9a-f]+\]$"
	DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$W/di/cache" run 0 "$W/d.bin"
	has_re "$W/out" "#0  0x[0-9a-f]+ f1\+0x4 \(.*/di/app/many\)$"
	grep -q "GET /buildid/$id/debuginfo" "$W/di/http.log"
}

# ------------------------------------------------------------------ hostile archives

# hostile_archive: the fixture recorded, then the archive or files edited
hostile_archive() {
	rm -rf "$W/h" "$W/sfs"
	mkdir -p "$W/h"
	cp "$FX/plain/fx-pie" "$FX/plain/libfx.so" "$W/h/"
	spawn "$W/h/fx-pie"
	user_dump "$W/u.bin"
	run 0 record --no-kallsyms -o "$W/h.ar" "$W/u.bin"
	kill "$FXPID"
	wait "$FXPID" 2>/dev/null || true
}

t_hostile_fifo() {
	hostile_archive
	# the recorded path now names a FIFO: refused at once, never opened
	rm "$W/h/fx-pie"
	mkfifo "$W/h/fx-pie"
	local rc=0
	timeout 20 "$BIN" --kallsyms "$KS" "$W/h.ar" > "$W/out" 2> "$W/err" || rc=$?
	[ $rc = 1 ] || { echo "exit $rc (124: it hung)"; cat "$W/err"; return 1; }
	has_re "$W/out" "#0  0x[0-9a-f]+ \[unknown: not a regular file\] fx-pie\+0x"
	has_re "$W/out" "#4  0x[0-9a-f]+ fxlib_entry\+0x"
	# the same under --symfs
	mkdir -p "$W/sfs$W/h"
	mkfifo "$W/sfs$W/h/libfx.so"
	rc=0
	timeout 20 "$BIN" --kallsyms "$KS" --symfs "$W/sfs" "$W/h.ar" > "$W/out" 2> "$W/err" || rc=$?
	[ $rc = 1 ] || { echo "exit $rc (124: it hung)"; cat "$W/err"; return 1; }
	has_re "$W/out" "#4  0x[0-9a-f]+ fxlib_entry\+0x"
	# a FIFO where libdwfl would look for a debug file: not looked at
	rm -rf "$W/dl2"
	mkdir -p "$W/dl2/.debug"
	cp "$FX/dl/fx-dl" "$FX/plain/libfx.so" "$W/dl2/"
	mkfifo "$W/dl2/.debug/fx-dl.debug"
	spawn "$W/dl2/fx-dl"
	user_dump "$W/u2.bin"
	rc=0
	timeout 20 "$BIN" --kallsyms "$KS" "$W/u2.bin" > "$W/out" 2> "$W/err" || rc=$?
	[ $rc = 1 ] || { echo "exit $rc (124: it hung)"; cat "$W/err"; return 1; }
	has "$W/err" "fx-dl.debug: not a regular file: not opened"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[fx-dl\+0x[0-9a-f]+\]$"
}

t_hostile_dotdot() {
	hostile_archive
	# a path with ".." would escape --symfs: the archive is bad input
	python3 "$HERE/artool.py" "$W/h.ar" "$W/b.ar" "path=fx-pie:/usr/../../etc/passwd"
	run 2 --symfs "$W/sfs" "$W/b.ar"
	has_re "$W/err" "b.ar: offset [0-9]+: map [0-9]+: path is not absolute and normalized"
	python3 "$HERE/artool.py" "$W/h.ar" "$W/b.ar" "path=fx-pie:relative/fx-pie"
	run 2 --symfs "$W/sfs" "$W/b.ar"
	has "$W/err" "path is not absolute and normalized"
}

t_hostile_replaced_file() {
	hostile_archive
	# another build at the recorded path: never its names
	cp "$FX/plain/fx-nopie" "$W/h/fx-pie"
	run 1 --kallsyms "$KS" "$W/h.ar"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[unknown: build-id mismatch\] fx-pie\+0x"
	hasnt "$W/out" "fx_wait"
	has_re "$W/out" "#4  0x[0-9a-f]+ fxlib_entry\+0x"
}

t_hostile_missing_build_id() {
	hostile_archive
	# no build-id recorded: the file at the path cannot be checked, so it
	# is not used, even though it is the right one
	python3 "$HERE/artool.py" "$W/h.ar" "$W/n.ar" "nobuildid=fx-pie"
	run 1 --kallsyms "$KS" "$W/n.ar"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[unknown: no build-id\] fx-pie\+0x"
	has_re "$W/out" "#4  0x[0-9a-f]+ fxlib_entry\+0x"
	# deleted when recorded: its path is not looked at (it names another
	# file or nothing), only build-id copies are
	python3 "$HERE/artool.py" "$W/h.ar" "$W/d.ar" "deleted=fx-pie"
	run 1 --kallsyms "$KS" "$W/d.ar"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[unknown: no file\] fx-pie\+0x"
}

t_hostile_earlier_boot() {
	# a stall file of an earlier boot of this kernel: the pid may now be
	# anyone's, live maps are not used
	spawn "$FX/plain/fx-pie"
	local u off
	u="$(fxaddr pc),$(fxaddr fx_tail)"
	off=$(echo "$BOOT" | sed 's/.*realtime_offset_ns=//')
	printf 'header release=%s snapshot_ns=1 realtime_offset_ns=%s\nrec cpu=0 start=%s dur=10 pid=%s tgid=%s u=%s\n' \
		"$(uname -r)" $((off - 3600000000000)) "$(mono_ns)" "$FXPID" "$FXPID" "$u" | mk "$W/e.bin"
	run 1 --kallsyms "$KS" "$W/e.bin"
	has "$W/err" "written in another boot (or the clock changed since)"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[unknown: other boot\]$"
	hasnt "$W/out" "fx_wait"
	# the kernel anchor elsewhere than in this boot's kallsyms (KASLR)
	printf 'header %s kernel_anchor=stack_trace_save kernel_anchor_addr=0xffffffff81000000\nrec cpu=0 start=%s dur=10 pid=%s tgid=%s u=%s\n' \
		"$BOOT" "$(mono_ns)" "$FXPID" "$FXPID" "$u" | mk "$W/e2.bin"
	if [ "$(awk '$3 == "stack_trace_save" {print $1; exit}' /proc/kallsyms)" != ffffffff81000000 ]; then
		run 1 --kallsyms "$KS" "$W/e2.bin"
		has_re "$W/out" "#0  0x[0-9a-f]+ \[unknown: other boot\]$"
	fi
	# a snapshot later than this boot's clock
	printf 'header release=%s snapshot_ns=%s realtime_offset_ns=%s\nrec cpu=0 start=1 dur=10 pid=%s tgid=%s u=%s\n' \
		"$(uname -r)" "$(($(mono_ns) + 100000000000000))" "$off" "$FXPID" "$FXPID" "$u" | mk "$W/e3.bin"
	run 1 --kallsyms "$KS" "$W/e3.bin"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[unknown: other boot\]$"
	# this boot: names
	printf 'header %s\nrec cpu=0 start=%s dur=10 pid=%s tgid=%s u=%s\n' "$BOOT" "$(mono_ns)" \
		"$FXPID" "$FXPID" "$u" | mk "$W/e4.bin"
	run 0 --kallsyms "$KS" "$W/e4.bin"
	has_re "$W/out" "#0  0x[0-9a-f]+ fx_wait\+0x0 "
}

t_record_deleted_unreadable_map_files() {
	# record without /proc/PID/map_files (as without CAP_SYS_ADMIN): a
	# deleted file's build-id is not taken from whatever is at its path now
	mkdir -p "$W/rd"
	cp "$FX/plain/fx-pie" "$FX/plain/libfx.so" "$W/rd/"
	# both without capabilities: the recorder may read the maps of a
	# process of its own uid with no more capabilities than it has, but
	# not /proc/PID/map_files (CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE)
	printf '#!/bin/sh\nexec setpriv --inh-caps=-all --bounding-set=-all --ambient-caps=-all -- %s\n' \
		"$W/rd/fx-pie" > "$W/rd/nocap"
	chmod +x "$W/rd/nocap"
	spawn "$W/rd/nocap"
	rm "$W/rd/fx-pie"
	cp "$FX/plain/fx-nopie" "$W/rd/fx-pie"	# a new file at the path
	user_dump "$W/u.bin"
	# no capabilities: /proc/PID/map_files cannot be read
	setpriv --inh-caps=-all --bounding-set=-all --ambient-caps=-all -- \
		"$BIN" -v record --no-kallsyms -o "$W/rd.ar" "$W/u.bin" 2> "$W/rec.err"
	has "$W/rec.err" "rd/fx-pie: deleted, and /proc/$FXPID/map_files unreadable: build-id not recorded"
	# the archive has no build-id for it: never the new file's
	python3 - "$W/rd.ar" "$(readelf -n "$W/rd/fx-pie" | awk '/Build ID/ {print $3}')" <<-'EOF'
	import struct, sys
	ar = open(sys.argv[1], "rb").read()
	assert bytes.fromhex(sys.argv[2]) not in ar, "the replacing file's build-id was recorded"
	EOF
	run 1 --kallsyms "$KS" "$W/rd.ar"
	has_re "$W/out" "#0  0x[0-9a-f]+ \[unknown: no build-id\] fx-pie\+0x"
}

# ------------------------------------------------------------------ write errors

t_write_errors() {
	local args
	spawn "$FX/plain/fx-pie"
	user_dump "$W/u.bin"
	for args in "report" "report -F json" "report -F folded" "report -F svg" "report --stream" \
		    "summary" "summary -F json"; do
		# shellcheck disable=SC2086
		run 2 --kallsyms "$KS" $args "$W/u.bin" -o /dev/full
		has "$W/err" "/dev/full: write error: No space left on device"
		# shellcheck disable=SC2086
		"$BIN" --kallsyms "$KS" $args "$W/u.bin" > /dev/full 2> "$W/err" && { echo "$args: exit 0"; return 1; }
		has "$W/err" "standard output: write error: No space left on device"
	done
	run 2 --kallsyms "$KS" diff "$W/u.bin" "$W/u.bin" -o /dev/full
	has "$W/err" "write error"
	run 128 --kallsyms "$KS" diff --min-growth=5 -o /dev/full "$W/u.bin" -- "$W/u.bin"
	has "$W/err" "write error"
	run 2 record -o /dev/full "$W/u.bin"
	has "$W/err" "/dev/full: write error: No space left on device"
}

# ------------------------------------------------------------------ UBSan inputs

# The mutated inputs that overflowed signed arithmetic (wall time, diff
# growth, totals): decoded, shown, no undefined behaviour (the suite runs
# under UBSan too).
t_ubsan_inputs() {
	printf 'header realtime_offset_ns=9223372036854775807\nrec cpu=0 start=18446744073709551615 dur=18446744073709551615 spin=18446744073709551615 u=0x10\nrec cpu=0 start=18446744073709551615 dur=18446744073709551615 u=0x10\n' | mk "$W/o1.bin"
	printf 'header realtime_offset_ns=-9223372036854775808\nrec cpu=0 start=5 dur=1 error=-2147483648 outcome=3\n' | mk "$W/o2.bin"
	run 1 --offline "$W/o1.bin"
	has "$W/out" "18446744073.709551615 2846-10-30T23:21:50.564327Z "	# 128-bit sum
	run 0 --offline "$W/o2.bin"
	has "$W/out" "0.000000005 - "		# before 1970
	has "$W/out" "outcome error -2147483648"
	run 1 --offline -F json "$W/o1.bin"
	json_ok "$W/out"
	eq "$(jq_ "$W/out" 'd["total_ns"]')" 18446744073709551615	# saturated
	run 1 --offline -F json summary "$W/o1.bin"
	eq "$(jq_ "$W/out" 'd["stacks"][0]["total_ns"]')" 18446744073709551615
	# diff's means and deltas are doubles: the saturated total, no overflow
	run 1 --offline -F json diff "$W/o2.bin" "$W/o1.bin"
	eq "$(jq_ "$W/out" 'd["rows"][0]["delta"]')" 1.8446744073709552e+19
	run 1 --offline -F json diff "$W/o1.bin" "$W/o2.bin"
	eq "$(jq_ "$W/out" 'd["rows"][-1]["delta"]')" -1.8446744073709552e+19
	run 1 --offline diff "$W/o1.bin" "$W/o2.bin"
	has "$W/out" " -18446744073709.551 "
	run 1 --offline -F folded diff "$W/o1.bin" "$W/o2.bin"
	has "$W/out" "app-0/0;[unknown] 36893488147419104 0"
	run 1 --offline -F svg diff "$W/o1.bin" "$W/o2.bin"
	has "$W/out" 'data-delta="-36893488147419104"' 
	run 1 --offline -F folded "$W/o1.bin"
	has "$W/out" " 36893488147419104"	# two stalls of 18446744073709552 µs (rounded up)
	run 1 --offline -F svg "$W/o1.bin"
}

# ------------------------------------------------------------------ overflowing arithmetic

# Issue 22 item 6: the lost counts are sums of the CPU table's 64-bit
# entries, over the CPUs of a file and the files of an input.  A sum that
# wrapped read as "no stalls lost" (dropped 2^64 - 1, then 1 more), and diff
# called the capture usable.  Refused: the file and the byte offset of the
# entry that overflows the sum, exit 2; in a diff verdict an unusable
# capture, skip (NEW) or abort (OLD).  The files stay in $W: seeds of the
# fuzzer (check.sh).
U64MAX=18446744073709551615
t_overflow_lost_counts() {
	# 1.0: the CPU table at 288, 48 bytes an entry, recorded at 0, dropped at 32
	printf 'cpu 0 dropped=%s\ncpu 1 dropped=1\nrec cpu=2 dur=1000 u=0x10\n' $U64MAX |
		mk "$W/ovf-dropped.bin"
	bad "$W/ovf-dropped.bin" 368 "cpu 1: dropped 1: the CPU table's counts of stalls overflow 64 bits"
	eq "$(wc -l < "$W/err")" 1
	local args
	for args in "-F json" "summary" "summary -F json" "--stream" "-F pprof" "-F trace-event"; do
		# shellcheck disable=SC2086
		run 2 --offline $args "$W/ovf-dropped.bin"
		eq "$(cat "$W/err")" "i915-stalls: $W/ovf-dropped.bin: offset 368: cpu 1: dropped 1: the CPU table's counts of stalls overflow 64 bits"
	done
	# recorded: 2^64 - 1 on cpu 0 (all but one overwritten), 1 on cpu 1
	printf 'cpu 0 recorded=%s overwritten=18446744073709551614\ncpu 1 recorded=1 overwritten=1\nrec cpu=0 dur=1000\n' \
		$U64MAX | mk "$W/ovf-recorded.bin"
	bad "$W/ovf-recorded.bin" 336 "cpu 1: recorded 1: the CPU table's counts of stalls overflow 64 bits"
	# recorded + dropped of one CPU
	printf 'cpu 0 dropped=%s\nrec cpu=0 dur=1000\n' $U64MAX | mk "$W/ovf-one-cpu.bin"
	bad "$W/ovf-one-cpu.bin" 320 "cpu 0: dropped $U64MAX: the CPU table's counts of stalls overflow 64 bits"
	# each file's sums fit, not those of two: the second file named (at 976)
	printf 'cpu 0 dropped=9223372036854775808\nrec cpu=0 dur=1000\n' | mk "$W/ovf-half.bin"
	run 0 --offline -F json "$W/ovf-half.bin"
	eq "$(jq_ "$W/out" 'd["lost"]')" "{'overwritten': 0, 'torn': 0, 'dropped': 9223372036854775808, 'total': 9223372036854775808}"
	cat "$W/ovf-half.bin" "$W/ovf-half.bin" > "$W/ovf-two.bin"
	bad "$W/ovf-two.bin" $((976 + 288)) "the CPU table's counts of stalls, with those of the stall files before it, overflow 64 bits"
	run 2 --offline --stream "$W/ovf-two.bin"
	has "$W/err" "$W/ovf-two.bin: offset $((976 + 288)): the CPU table's counts"
	# and of two inputs
	run 2 --offline "$W/ovf-half.bin" "$W/ovf-half.bin"
	eq "$(cat "$W/err")" "i915-stalls: $W/ovf-half.bin: offset 288: the CPU table's counts of stalls, with those of the stall files before it, overflow 64 bits"
	# diff: OLD and NEW alike, but one NEW capture's counts overflow (they
	# wrapped to 4 seen, 0 lost: "good"): skip; an OLD one: abort
	local i O=() N=()
	for i in 0 1 2; do
		cap "$W/ovf-o$i.bin" 1000; O+=("$W/ovf-o$i.bin")
		cap "$W/ovf-n$i.bin" 1000; N+=("$W/ovf-n$i.bin")
	done
	run 0 --offline diff "${O[@]}" -- "${N[@]}"
	cap "$W/ovf-h.bin" 1000 "" "dropped=9223372036854775808"
	cat "$W/ovf-h.bin" "$W/ovf-h.bin" > "$W/ovf-n2.bin"
	run 125 --offline diff "${O[@]}" -- "${N[@]}"
	has "$W/err" "$W/ovf-n2.bin: offset $(($(stat -c %s "$W/ovf-h.bin") + 288)): the CPU table's counts of stalls, with those of the stall files before it, overflow 64 bits"
	has "$W/err" "$W/ovf-n2.bin: unusable NEW capture: skip"
	[ ! -s "$W/out" ] || { echo "stdout not empty"; return 1; }
	run 128 --offline diff "$W/ovf-n2.bin" "${O[@]:1}" -- "${O[@]}"
	has "$W/err" "$W/ovf-n2.bin: unusable OLD capture: abort"
	run 2 --offline diff "$W/ovf-o0.bin" "$W/ovf-dropped.bin"
	has "$W/err" "$W/ovf-dropped.bin: offset 368: cpu 1: dropped 1: the CPU table's counts"
}

# Issue 22 item 6: a file's realtime_offset_ns far below the running boot's
# made live_verdict()'s difference of the two overflow: undefined, and gcc
# -O2 dropped the check of it, took the file for one of this boot and used
# the live maps of its pids (UBSan stops the reader).  Another boot, said
# so; live maps not used.
t_overflow_realtime_offset() {
	printf 'header release=%s snapshot_ns=1 realtime_offset_ns=-9223372036854775808\nrec cpu=0 start=5 dur=1000 pid=1 tgid=1 u=0x10\n' \
		"$(uname -r)" | mk "$W/ovf-rto.bin"
	run 1 --kallsyms "$KS" "$W/ovf-rto.bin"
	has "$W/err" "$W/ovf-rto.bin: written in another boot (or the clock changed since)"
	has "$W/out" "    #0  0x0000000000000010 [unknown: other boot]"
}

# ------------------------------------------------------------------ caches and scale

# Over the cache budget, entries are evicted one by one and every frame
# still comes out right: the output equals the one with room for all.
t_cache_budget() {
	{
		echo 'header kernel_anchor_addr=0xffffffff81000000'
		awk 'BEGIN { for (i = 0; i < 30000; i++)
			printf "rec cpu=0 start=%d dur=%d pid=%d tgid=%d k=0xffffffff81%06x,0xffffffff81000105 u=0x%x,0x%x\n",
				i, 1000 + i % 7, i % 50 + 1, i % 50 + 1, 1153 + (i * 7) % 4096, 4194304 + i % 3000, 4194304 + i }'
	} | mk "$W/many.bin"
	local args
	for args in "" "summary" "-F folded" "-F json summary" "-F svg"; do
		# shellcheck disable=SC2086
		run 1 --offline --kallsyms "$KS" -v $args "$W/many.bin"
		mv "$W/out" "$W/big-cache"
		grep -q ", 0 evicted), stacks [0-9]* ([0-9]* hits, [0-9]* misses, 0 evicted)" "$W/err"
		# shellcheck disable=SC2086
		run 1 --offline --kallsyms "$KS" -v --cache-size=1 $args "$W/many.bin"
		diff -u "$W/big-cache" "$W/out" > /dev/null || { echo "differs with a small cache: $args"; return 1; }
		# the budget was reached and entries evicted, not everything dropped
		grep -Eq "symbol caches: [0-9]{6,7} of 1048576 bytes; frames [0-9]+ \([0-9]+ hits, [0-9]+ misses, [1-9][0-9]* evicted\)" "$W/err" ||
			{ cat "$W/err"; return 1; }
	done
}

# Past the budget, no frame of the stall being emitted is evicted, not even
# one that only a stack of that stall holds: the third stall's kernel stack
# is a cache hit (cached when the second stall saw it again; its frames are
# not looked up again), then its caller frame needs room past the 1 MiB
# budget. make_room() marks this stall's stacks' frames (stamp_frames())
# before it evicts frames, so it goes over the budget instead; without the
# marks it frees the first frame of that stack, which is then printed (a use
# after free: 200 KB entries are unmapped when freed).
t_cache_keeps_stall_frames() {
	python3 - "$W/long.kallsyms" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("ffffffff81000000 T _stext\n")
    # four frames of 200 KB each (the label and the folded name; the key
    # and the symbol's name are the folded name's text)
    for i in range(4):
        f.write("%x T kframe%d_%s\n" % (0xffffffff81001000 + i * 0x100, i, "x" * 100000))
    f.write("ffffffff81002000 T kcaller_%s\n" % ("y" * 100000))
PY
	local k=0xffffffff81001010,0xffffffff81001110,0xffffffff81001210,0xffffffff81001310
	mk "$W/hit.bin" <<-EOF
		header kernel_anchor_addr=0xffffffff81000000
		rec cpu=0 start=1 dur=1000 pid=1 tgid=1 k=$k
		rec cpu=0 start=2 dur=1000 pid=1 tgid=1 k=$k
		rec cpu=0 start=3 dur=1000 pid=1 tgid=1 caller=0xffffffff81002010 k=$k
	EOF
	run 0 --offline --kallsyms "$W/long.kallsyms" -v "$W/hit.bin"
	mv "$W/out" "$W/hit-big"
	# the stack: not cached when first seen, cached when seen again, a hit
	has "$W/err" "frames 5 (4 hits, 5 misses, 0 evicted), stacks 1 (1 hits, 2 misses, 0 evicted)"
	run 0 --offline --kallsyms "$W/long.kallsyms" -v --cache-size=1 "$W/hit.bin"
	# nothing evicted: all of it is the third stall's; over the budget
	has_re "$W/err" "symbol caches: [0-9]+ of 1048576 bytes; frames 5 \(4 hits, 5 misses, 0 evicted\), stacks 1 \(1 hits, 2 misses, 0 evicted\)$"
	[ "$(sed -n 's/.*symbol caches: \([0-9]*\) of.*/\1/p' "$W/err")" -gt 1048576 ]
	cmp "$W/hit-big" "$W/out" || { echo "differs with a small cache"; return 1; }
	local xs ys
	xs=$(printf "%100000s" "" | tr " " x)
	ys=$(printf "%100000s" "" | tr " " y)
	eq "$(grep -cxF "    #0  0xffffffff81001010 kframe0_$xs+0x10" "$W/out")" 3
	eq "$(grep -cxF "    #3  0xffffffff81001310 kframe3_$xs+0x10" "$W/out")" 3
	eq "$(grep -cxF "  caller 0xffffffff81002010 kcaller_$ys+0x10" "$W/out")" 1
}

# The frames of stacks not seen before are looked up a few stalls ahead
# (sym_prefetch()): the sorted report, which does so, prints what report
# --stream, which does not, prints; with room for every frame, and with
# frames evicted between the lookups made ahead and their use.
t_distinct_stacks_ahead() {
	{
		echo 'header kernel_anchor_addr=0xffffffff81000000'
		awk 'BEGIN { for (i = 0; i < 20000; i++) {
			j = i % 10 >= 8 ? i - i % 10 : i	# a stack seen again, and again
			printf "rec cpu=0 start=%d dur=%d pid=7 tgid=7 k=0xffffffff81000105 u=", i, 1000 + i % 13
			for (d = 0; d < 12; d++)
				printf "%s0x%x", d ? "," : "", 4194304 + d * 65536 + (j * (d + 3) * 7919 + d) % 4096
			print ""
		} }'
	} | mk "$W/ahead.bin"
	local cs
	for cs in --cache-size=128 --cache-size=1; do
		run 1 --offline --kallsyms "$KS" -v "$cs" "$W/ahead.bin"
		grep -v "stalls shown" "$W/out" > "$W/sorted.txt"
		mv "$W/err" "$W/sorted.err"
		run 1 --offline --kallsyms "$KS" "$cs" --stream "$W/ahead.bin"
		grep -v "stalls shown" "$W/out" > "$W/streamed.txt"
		cmp "$W/sorted.txt" "$W/streamed.txt" || { echo "differs with $cs"; return 1; }
	done
	# the last run of the sorted report evicted frames
	has_re "$W/sorted.err" "frames [0-9]+ \([0-9]+ hits, [0-9]+ misses, [1-9][0-9]* evicted\)"
}

# folded and svg spill sorted runs to disk past the budget: the same output
# with 1 MiB as with room for everything, in bounded memory
t_folded_bounded() {
	awk 'BEGIN { for (i = 0; i < 40000; i++)
		printf "rec cpu=0 start=%d dur=%d comm=c%d k=0xffffffff81000105 u=0x%x,0x%x,0x%x\n",
			i, 1000 + i, i * 7919 % 40000, 4194304 + i, 5242880 + (i * 13) % 40000, 6291456 + i % 97 }' |
		sed '1i header kernel_anchor_addr=0xffffffff81000000' | mk "$W/d.bin"
	run 1 --offline --kallsyms "$KS" -F folded "$W/d.bin"
	mv "$W/out" "$W/f1"
	[ "$(wc -l < "$W/f1")" = 40000 ]
	run 1 --offline --kallsyms "$KS" -F folded --cache-size=1 "$W/d.bin"
	diff -u "$W/f1" "$W/out" > /dev/null || { echo "spilled folded output differs"; return 1; }
	# frame order: each frame's stacks are consecutive (';' sorts lowest)
	python3 -c '
import sys
lines = [l.rsplit(" ", 1)[0].split(";") for l in open(sys.argv[1])]
assert lines == sorted(lines), "not in frame order"' "$W/f1"
	run 1 --offline --kallsyms "$KS" -F svg "$W/d.bin"
	mv "$W/out" "$W/s1"
	run 1 --offline --kallsyms "$KS" -F svg --cache-size=1 "$W/d.bin"
	diff -u "$W/s1" "$W/out" > /dev/null || { echo "spilled svg differs"; return 1; }
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$W/s1"
	local big small
	big=$(maxrss_kb --offline --kallsyms "$KS" -F folded "$W/d.bin")
	small=$(maxrss_kb --offline --kallsyms "$KS" -F folded --cache-size=1 "$W/d.bin")
	echo "peak RSS: folded $big KiB, with a 1 MiB budget $small KiB"
	[ "$small" -lt "$big" ]
}

# ------------------------------------------------------------------ the man page

# Every option, wait site, unresolved reason and exit status of the code is
# in the man page, and the man page has none the code lacks.
t_man_page_matches_code() {
	"$HERE/../build/mancheck" > "$W/code.txt"
	python3 "$HERE/mancheck.py" "$W/code.txt" "$HERE/../i915-stalls.1" "$HERE/../../Kconfig.snippet"
}

t_json_keys_documented() {
	# every key of a frame is always there, with and without --lines
	spawn "$FX/dl/fx-dl"
	user_dump "$W/u.bin"
	local lines
	for lines in "" "--lines"; do
		# shellcheck disable=SC2086
		run 1 --kallsyms "$KS" $lines -F json "$W/u.bin"
		eq "$(jq_ "$W/out" 'sorted(set(tuple(f.keys()) for s in d["stalls"] for f in s["ustack"]))')" \
			"[('addr', 'symbol', 'offset', 'module', 'module_offset', 'reason', 'file', 'line')]"
	done
}
