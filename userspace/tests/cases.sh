# SPDX-License-Identifier: MIT
# The reader's tests of issue 14 (sourced by run.sh, which has the harness):
# the eu-addr2line comparison suite, hostile archives, write errors, the
# UBSan inputs, the caches' budget, bounded folded and SVG output, the vDSO,
# debuginfod, and the man page held to the code.

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
