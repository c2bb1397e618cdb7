# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Format 1.2 (sourced by run.sh): user frames named from the record's own
# maps by build-id after the process has gone, the stack snapshot unwound
# by CFI and joined to the frame-pointer chain, every reason a frame or the
# chain stops shown, and the checks of the new fields.
#
# The files come from tests/ustack/gen.c (fixtures.sh builds it with and
# without frame pointers), which records its own stall as the kernel would
# and exits before the reader runs.

U12=$W/u12
rm -rf "$U12"
cp -r "$FX/ustack" "$U12"
"$U12/fp/ustack-gen" plain "$W/fp.bin"
"$U12/nofp/ustack-gen" plain "$W/nofp.bin"
"$U12/fp/ustack-gen" anon "$W/anon.bin"
# a library replaced on disk after the stall: same path, another build-id
for v in fp nofp; do
	cp -r "$U12/$v" "$U12/rep$v"
	"$U12/rep$v/ustack-gen" plain "$W/rep$v.bin"
	cp "$U12/other/libusta.so" "$U12/rep$v/libusta.so"
done

# ustack_syms FILE: the user chain of the only stall as (symbol, cfi) pairs
ustack_syms() {
	jq_ "$1" '[(f["symbol"], f["cfi"]) for f in d["stalls"][0]["ustack"]]'
}
# ustack_names FILE: the symbols alone
ustack_names() {
	jq_ "$1" '[f["symbol"] for f in d["stalls"][0]["ustack"]]'
}

# poke12 FILE OUT OFFSET SIZE VALUE...: a copy of FILE with little-endian
# integers written at the given file offsets
poke12() {
	python3 - "$@" <<'PY'
import sys
src, dst, *rest = sys.argv[1:]
b = bytearray(open(src, "rb").read())
for i in range(0, len(rest), 3):
    off, size, val = int(rest[i], 0), int(rest[i + 1]), int(rest[i + 2], 0)
    b[off:off + size] = val.to_bytes(size, "little")
open(dst, "wb").write(b)
PY
}
# ustack-gen's layout: header 312 B, one CPU entry, the record at 360
R0=360
LIBC_FP="('__libc_start_call_main', False), ('__libc_start_main@@GLIBC_2.34', True), ('_start', True)"
LIBC_CFI="('__libc_start_call_main', True), ('__libc_start_main@@GLIBC_2.34', True), ('_start', True)"
CHAIN_FP="[('fake_ioctl', False), ('b_wait', True), ('a_submit', True), ('run_frame', False), ('main', False), $LIBC_FP]"
CHAIN_NOFP="[('fake_ioctl', False), ('b_wait', True), ('a_submit', True), ('run_frame', True), ('main', True), $LIBC_CFI]"

# with frame pointers: the wrapper, then the two frames the frame-pointer
# walk skips (b_wait keeps no frame pointer), found by CFI, then the rest
t_v12_cfi_chain_fp() {
	run 0 --offline -F json "$W/fp.bin"
	json_ok "$W/out"
	eq "$(ustack_syms "$W/out")" "$CHAIN_FP"
	eq "$(jq_ "$W/out" 'd["stalls"][0]["ustack_end"], d["stalls"][0]["flags"], d["inputs"][0]["version"]')" \
		"None ['user_regs'] 1.2"
	eq "$(jq_ "$W/out" '[f["module"].split("/")[-1] for f in d["stalls"][0]["ustack"]]')" \
		"['libustb.so', 'libustb.so', 'libusta.so', 'ustack-gen', 'ustack-gen', 'libc.so.6', 'libc.so.6', 'ustack-gen']"
	run 0 --offline "$W/fp.bin"
	has_re "$W/out" "^    #0  0x[0-9a-f]{16} fake_ioctl\+0xd \(.*/fp/libustb\.so\)$"
	has_re "$W/out" "^    #1  0x[0-9a-f]{16} b_wait\+0x[0-9a-f]+ \(.*/fp/libustb\.so\) \[cfi\]$"
	has_re "$W/out" "^    #2  0x[0-9a-f]{16} a_submit\+0x[0-9a-f]+ \(.*/fp/libusta\.so\) \[cfi\]$"
	has_re "$W/out" "^    #3  0x[0-9a-f]{16} run_frame\+0x[0-9a-f]+ \(.*/fp/ustack-gen\)$"
	eq "$(grep -c '\[cfi\]$' "$W/out")" 4
	hasnt "$W/out" "[end:"
	run 0 --offline -F folded --folded-root=comm "$W/fp.bin"
	eq "$(cat "$W/out")" \
		"ustack-gen;_start_[c];__libc_start_main@@GLIBC_2.34_[c];__libc_start_call_main;main;run_frame;a_submit_[c];b_wait_[c];fake_ioctl 2000"
	# the flame graph's titles carry the marker too
	run 0 --offline -F svg "$W/fp.bin"
	has "$W/out" "b_wait_[c]"
}

# without frame pointers: the same names, all but the PC found by CFI
t_v12_cfi_chain_nofp() {
	run 0 --offline -F json "$W/nofp.bin"
	eq "$(ustack_syms "$W/out")" "$CHAIN_NOFP"
	cp "$W/out" "$W/nofp.json"
	run 0 --offline -F json "$W/fp.bin"
	eq "$(ustack_names "$W/out")" "$(ustack_names "$W/nofp.json")"
	run 0 --offline -F folded --folded-root=comm "$W/nofp.bin"
	eq "$(cat "$W/out")" \
		"ustack-gen;_start_[c];__libc_start_main@@GLIBC_2.34_[c];__libc_start_call_main_[c];main_[c];run_frame_[c];a_submit_[c];b_wait_[c];fake_ioctl 2000"
}

# the files are gone from the recorded paths: unresolved, never guessed;
# with a copy under --symfs (another machine), every frame is named again
t_v12_symfs_other_machine() {
	local root=$W/sysroot
	rm -rf "$root" "$W/moved"
	mkdir -p "$root$U12"
	cp -r "$U12/nofp" "$root$U12/nofp"
	mv "$U12/nofp" "$W/moved"
	run 1 --offline -F json "$W/nofp.bin" || { mv "$W/moved" "$U12/nofp"; return 1; }
	cp "$W/out" "$W/gone.json"
	run 0 --offline --symfs "$root" -F json "$W/nofp.bin" || { mv "$W/moved" "$U12/nofp"; return 1; }
	mv "$W/moved" "$U12/nofp"
	eq "$(jq_ "$W/gone.json" '[(f["symbol"], f["reason"]) for f in d["stalls"][0]["ustack"]], d["stalls"][0]["ustack_end"]["reason"]')" \
		"[(None, 'no file')] no CFI for"
	eq "$(ustack_syms "$W/out")" "$CHAIN_NOFP"
}

# A map whose path does not fit the record's 80 bytes (d_path() too long)
# carries the file name alone, without MAP_PATH: the reader never opens a
# file by that name (not in the working directory, not under --symfs) and
# finds it by its build-id only, in a .build-id tree (here under --symfs,
# relative or absolute); with no file of that build-id its frames say "no
# file", with the name and the offset in the file
t_v12_name_only_by_build_id() {
	local long root=$W/bidroot f id
	long=$W/long/$(printf "%090d" 0 | tr 0 d)
	rm -rf "$W/long" "$root" "$root"lib* "$root"ustack* "$W/decoy"
	mkdir -p "$long" "$W/decoy"
	cp "$U12/fp/ustack-gen" "$U12/fp/libusta.so" "$U12/fp/libustb.so" "$long/"
	"$long/ustack-gen" plain "$W/long.bin"
	# the record's maps: the generator's three files by name alone, as the
	# kernel writes them; libc by its path
	eq "$(python3 - "$W/long.bin" "$R0" <<'PY'
import sys
b, r0 = open(sys.argv[1], "rb").read(), int(sys.argv[2])
m0, n = r0 + 712, int.from_bytes(b[r0 + 652:r0 + 654], "little")
out = []
for i in range(n):
    m = b[m0 + i * 128:m0 + (i + 1) * 128]
    name = m[48:128].split(b"\0")[0].decode()
    if "/" not in name or name.endswith("/libc.so.6"):
        out.append((name.split("/")[-1], m[45], m[44]))
print(sorted(out))
PY
)" "[('libc.so.6', 3, 20), ('libusta.so', 1, 20), ('libustb.so', 1, 20), ('ustack-gen', 1, 20)]"
	# files of those names with another build-id, where a name could lead
	for f in libustb.so ustack-gen libusta.so; do
		cp "$U12/other/libusta.so" "$W/decoy/$f"
	done
	mkdir -p "$root"
	for f in libustb.so ustack-gen libusta.so; do
		cp "$W/decoy/$f" "$root/$f"
		cp "$W/decoy/$f" "$root$f"	# --symfs joined to a name without '/'
	done
	# no file with their build-ids: not found, never the decoys
	(cd "$W/decoy" && run 1 --offline --symfs "$root" "$W/long.bin")
	has_re "$W/out" "^    #0  0x[0-9a-f]{16} \[unknown: no file\] libustb\.so\+0x[0-9a-f]+$"
	has_re "$W/out" "^    #1  0x[0-9a-f]{16} \[unknown: no file\] ustack-gen\+0x[0-9a-f]+$"
	has_re "$W/out" "^    #2  0x[0-9a-f]{16} \[unknown: no file\] ustack-gen\+0x[0-9a-f]+$"
	has_re "$W/out" "^    #3  0x[0-9a-f]{16} __libc_start_call_main\+0x7a \(/.*/libc\.so\.6\)$"
	eq "$(grep -c '^    #' "$W/out")" 4
	hasnt "$W/out" "replaced_"
	hasnt "$W/out" "mismatch"
	(cd "$W/decoy" && run 1 --offline --symfs "$root" -F json "$W/long.bin")
	cp "$W/out" "$W/nofile.json"
	eq "$(jq_ "$W/out" '[(f["symbol"], f["module"], f["reason"]) for f in d["stalls"][0]["ustack"]][:3]')" \
		"[(None, 'libustb.so', 'no file'), (None, 'ustack-gen', 'no file'), (None, 'ustack-gen', 'no file')]"
	# the build-id tree: every frame named, the chain as from the paths
	for f in libustb.so ustack-gen libusta.so; do
		id=$(readelf -n "$long/$f" | awk '/Build ID:/ { print $3 }')
		mkdir -p "$root/usr/lib/debug/.build-id/${id:0:2}"
		cp "$long/$f" "$root/usr/lib/debug/.build-id/${id:0:2}/${id:2}"
	done
	rm -rf "$W/long"
	run 0 --offline --symfs "$root" -F json "$W/long.bin"
	eq "$(ustack_syms "$W/out")" "$CHAIN_FP"
	eq "$(jq_ "$W/out" '[f["module"] for f in d["stalls"][0]["ustack"]][:5]')" \
		"['libustb.so', 'libustb.so', 'libusta.so', 'ustack-gen', 'ustack-gen']"
	# the unresolved frames gave the same offsets in the files
	eq "$(jq_ "$W/out" '[d["stalls"][0]["ustack"][i]["module_offset"] for i in (0, 3, 4)]')" \
		"$(jq_ "$W/nofile.json" '[f["module_offset"] for f in d["stalls"][0]["ustack"][:3]]')"
	(cd "$W" && run 0 --offline --symfs bidroot "$W/long.bin")
	has_re "$W/out" "^    #0  0x[0-9a-f]{16} fake_ioctl\+0xd \(libustb\.so\)$"
	has_re "$W/out" "^    #2  0x[0-9a-f]{16} a_submit\+0x[0-9a-f]+ \(libusta\.so\) \[cfi\]$"
	has_re "$W/out" "^    #7  0x[0-9a-f]{16} _start\+0x21 \(ustack-gen\) \[cfi\]$"
}

# a library replaced after the stall: its frames say so in every format,
# its new names never appear; CFI cannot go through it
t_v12_build_id_mismatch() {
	run 1 --offline "$W/repfp.bin"
	has_re "$W/out" "^    #2  0x[0-9a-f]{16} \[unknown: build-id mismatch\] libusta\.so\+0x[0-9a-f]+ \[cfi\]$"
	has_re "$W/out" "^    #3  0x[0-9a-f]{16} run_frame\+0x[0-9a-f]+ \(.*/repfp/ustack-gen\)$"
	hasnt "$W/out" "replaced_"
	run 1 --offline -F json "$W/repfp.bin"
	eq "$(jq_ "$W/out" '[(f["symbol"], f["reason"], f["cfi"]) for f in d["stalls"][0]["ustack"]]')" \
		"[('fake_ioctl', None, False), ('b_wait', None, True), (None, 'build-id mismatch', True), ('run_frame', None, False), ('main', None, False), ('__libc_start_call_main', None, False)]"
	hasnt "$W/out" "replaced_"
	run 1 --offline -F folded --folded-root=comm "$W/repfp.bin"
	eq "$(cat "$W/out")" \
		"ustack-gen;__libc_start_call_main;main;run_frame;[libusta.so: build-id mismatch]_[c];b_wait_[c];fake_ioctl 2000"
	run 1 --offline summary "$W/repfp.bin"
	has "$W/out" "[libusta.so: build-id mismatch]_[c]"
	# no frame pointers either: the chain stops there, and says why
	run 1 --offline "$W/repnofp.bin"
	has_re "$W/out" "^    \[end: no CFI for 0x[0-9a-f]+\]$"
	eq "$(sed -n '/user stack/,$p' "$W/out" | grep -c '^    #')" 3
	hasnt "$W/out" "replaced_"
	run 1 --offline -F json "$W/repnofp.bin"
	eq "$(jq_ "$W/out" 'd["stalls"][0]["ustack_end"]["reason"], d["stalls"][0]["ustack_end"]["addr"] == d["stalls"][0]["ustack"][2]["addr"]')" \
		"no CFI for True"
}

# a frame in anonymous executable memory: flagged, its raw address shown,
# the chain goes on by the frame pointers above it
t_v12_anon_frame() {
	run 1 --offline "$W/anon.bin"
	has_re "$W/out" "^    #1  0x[0-9a-f]{16} a_wait2\+0x[0-9a-f]+ \(.*/fp/libusta\.so\) \[cfi\]$"
	has_re "$W/out" "^    #2  0x[0-9a-f]{16} \[unknown: anon\]$"
	has_re "$W/out" "^    #3  0x[0-9a-f]{16} run_anon\+0x[0-9a-f]+ \(.*/fp/ustack-gen\)$"
	run 1 --offline -F json "$W/anon.bin"
	eq "$(jq_ "$W/out" '[(f["symbol"], f["reason"], f["module"] is None, f["cfi"]) for f in d["stalls"][0]["ustack"]][:4]')" \
		"[('fake_ioctl', None, False, False), ('a_wait2', None, False, True), (None, 'anon', True, False), ('run_anon', None, False, False)]"
	# the raw address is the recorded ustack[1], in no map of the record
	eq "$(jq_ "$W/out" 'int(d["stalls"][0]["ustack"][2]["addr"], 16) % 4096 < 64')" True
}

# a snapshot cut short: with frame pointers the chain is whole (the walk's
# entries above the snapshot follow the last CFI frame); without, it stops
# and says why
t_v12_snapshot_exhausted() {
	poke12 "$W/fp.bin" "$W/fp-short.bin" $((R0 + 648)) 4 64
	run 0 --offline -F json "$W/fp-short.bin"
	eq "$(ustack_names "$W/out")" \
		"['fake_ioctl', 'b_wait', 'a_submit', 'run_frame', 'main', '__libc_start_call_main']"
	eq "$(jq_ "$W/out" 'd["stalls"][0]["ustack_end"], d["stalls"][0]["ustack_snapshot_bytes"]')" "None 64"
	poke12 "$W/nofp.bin" "$W/nofp-short.bin" $((R0 + 648)) 4 64
	run 0 --offline "$W/nofp-short.bin"
	has "$W/out" "    [end: snapshot exhausted]"
	run 0 --offline -F json "$W/nofp-short.bin"
	eq "$(ustack_syms "$W/out")" "[('fake_ioctl', False), ('b_wait', True), ('a_submit', True)]"
	# a 40-byte snapshot with rbp planted at sp + 16 on a frame [sp + 16] =
	# 0, [sp + 24] = user_ip: b_wait's CFI step reads past the snapshot,
	# libdw's frame-pointer fallback would make a frame of the planted one;
	# it is refused (its stack pointer is not b_wait's CFA)
	local sp ip
	sp=$(jq_ "$W/out" 'int(d["stalls"][0]["user_regs"]["sp"], 16)')
	ip=$(jq_ "$W/out" 'int(d["stalls"][0]["user_regs"]["ip"], 16)')
	poke12 "$W/nofp.bin" "$W/planted.bin" $((R0 + 648)) 4 40 $((R0 + 672)) 8 $((sp + 16)) \
		$((R0 + 2760 + 16)) 8 0 $((R0 + 2760 + 24)) 8 "$ip"
	run 0 --offline -F json "$W/planted.bin"
	eq "$(ustack_syms "$W/out") $(jq_ "$W/out" 'd["stalls"][0]["ustack_end"]["reason"]')" \
		"[('fake_ioctl', False), ('b_wait', True)] snapshot exhausted"
}

# Issue 22 item 6: a user_bp within 16 bytes of 2^64 (aligned, above the
# stack pointer) wrapped the frame-pointer walk's bp + 16 below the
# snapshot's end: a read 2^64 - 16 bytes off (exit 139).  No frame lies
# there: the walk's slots are unknown, none of its entries is joined after
# the CFI frames.  Kept in $W, seeds of the fuzzer.
t_v12_user_bp_wraps() {
	local v
	for v in 0xfffffffffffffff8 0xfffffffffffffff0; do
		poke12 "$W/fp.bin" "$W/bp-wrap-$v.bin" $((R0 + 672)) 8 $v
		run 0 --offline -F json "$W/bp-wrap-$v.bin"
		eq "$(ustack_syms "$W/out") $(jq_ "$W/out" 'd["stalls"][0]["ustack_end"]["reason"], d["stalls"][0]["user_regs"]["bp"]')" \
			"[('fake_ioctl', False), ('b_wait', True), ('a_submit', True)] snapshot exhausted $v"
		run 0 --offline "$W/bp-wrap-$v.bin"
		has "$W/out" "    [end: snapshot exhausted]"
		eq "$(grep -c '^    #' "$W/out")" 3
	done
}

# what the kernel may write when it cannot do better
t_v12_tolerated() {
	# no snapshot: the frame-pointer chain as recorded, nothing marked
	poke12 "$W/fp.bin" "$W/nosnap.bin" $((R0 + 648)) 4 0
	run 0 --offline -F json "$W/nosnap.bin"
	eq "$(ustack_syms "$W/out")" \
		"[('fake_ioctl', False), ('run_frame', False), ('main', False), ('__libc_start_call_main', False)]"
	# the mmap lock not taken: no maps, every frame says so
	poke12 "$W/fp.bin" "$W/nolock.bin" $((R0 + 94)) 2 $((0x180)) $((R0 + 652)) 2 0 \
		$((R0 + 680)) 4 $((0xfdfdfdfd)) $((R0 + 684)) 4 $((0xfdfdfdfd))
	run 1 --offline -F json "$W/nolock.bin"
	eq "$(jq_ "$W/out" '[f["reason"] for f in d["stalls"][0]["ustack"]], d["stalls"][0]["flags"], d["stalls"][0]["ustack_end"]')" \
		"['maps not saved', 'maps not saved', 'maps not saved', 'maps not saved'] ['user_regs', 'maps_nolock'] None"
	run 1 --offline "$W/nolock.bin"
	has_re "$W/out" "^    #0  0x[0-9a-f]{16} \[unknown: maps not saved\]$"
	# a 32-bit task: not unwound, and said so
	poke12 "$W/fp.bin" "$W/compat.bin" $((R0 + 94)) 2 $((0x82))
	run 0 --offline "$W/compat.bin"
	has "$W/out" "    [end: 32-bit task, not unwound]"
	hasnt "$W/out" "[cfi]"
	# the next record, not unwound (no snapshot), does not inherit that end
	cat "$W/compat.bin" "$W/nosnap.bin" > "$W/compat-then.bin"
	run 0 --offline "$W/compat-then.bin"
	eq "$(grep -c '^    \[end: ' "$W/out")" 1
	run 0 --offline -F json "$W/compat-then.bin"
	eq "$(jq_ "$W/out" '[s["ustack_end"] is None for s in d["stalls"]]')" "[False, True]"
}

# the checks of the new fields: file and byte offset named, exit 2
t_v12_bad_input() {
	poke12 "$W/fp.bin" "$W/b1.bin" $((R0 + 652)) 2 17
	run 2 --offline "$W/b1.bin"
	has "$W/err" "$W/b1.bin: offset $((R0 + 652)): record 0: map_count 17 exceeds map_max 16"
	poke12 "$W/fp.bin" "$W/b2.bin" $((R0 + 648)) 4 16385
	run 2 --offline "$W/b2.bin"
	has "$W/err" "$W/b2.bin: offset $((R0 + 648)): record 0: ustack_size 16385 exceeds ustack_snapshot_max 16384"
	poke12 "$W/fp.bin" "$W/b3.bin" $((R0 + 681)) 1 15
	run 2 --offline "$W/b3.bin"
	has_re "$W/err" "b3.bin: offset $((R0 + 681)): record 0: ustack_map\[1\] 15: no such map \(map_count [0-9]+\)$"
	poke12 "$W/fp.bin" "$W/b4.bin" 304 4 716
	run 2 --offline "$W/b4.bin"
	has "$W/err" "$W/b4.bin: offset 304: maps_offset 716 overlaps the record's fixed part (712 bytes) or is misaligned"
	poke12 "$W/fp.bin" "$W/b5.bin" 300 4 65536
	run 2 --offline "$W/b5.bin"
	has "$W/err" "$W/b5.bin: offset 300: a 65536-byte stack snapshot at record offset 2760 ends past record_size 19144"
	poke12 "$W/fp.bin" "$W/b6.bin" 308 4 1000
	run 2 --offline "$W/b6.bin"
	has "$W/err" "$W/b6.bin: offset 308: ustack_offset 1000 overlaps the maps (they end at 2760)"
	poke12 "$W/fp.bin" "$W/b7.bin" 296 4 253
	run 2 --offline "$W/b7.bin"
	has "$W/err" "$W/b7.bin: offset 296: map_max 253 exceeds 252"
	# map 1 starts inside map 0
	local m0=$((R0 + 712)) start0
	start0=$(python3 -c "import sys; print(int.from_bytes(open(sys.argv[1],'rb').read()[$m0:$m0+8],'little'))" "$W/fp.bin")
	poke12 "$W/fp.bin" "$W/b8.bin" $((m0 + 128)) 8 $((start0 + 16)) $((m0 + 136)) 8 $((start0 + 32))
	run 2 --offline "$W/b8.bin"
	has_re "$W/err" "b8.bin: offset $((m0 + 128)): record 0: map 1 \[0x[0-9a-f]+, 0x[0-9a-f]+\) overlaps map 0$"
	poke12 "$W/fp.bin" "$W/b9.bin" $((m0 + 44)) 1 21
	run 2 --offline "$W/b9.bin"
	has "$W/err" "$W/b9.bin: offset $((m0 + 44)): record 0: map 0: build_id_size 21 exceeds 20"
	# a file offset past 2^64 (issue 22 item 6)
	local len0
	len0=$(python3 -c "import sys; b=open(sys.argv[1],'rb').read(); print(int.from_bytes(b[$m0+8:$m0+16],'little') - int.from_bytes(b[$m0:$m0+8],'little'))" "$W/fp.bin")
	poke12 "$W/fp.bin" "$W/b10.bin" $((m0 + 16)) 8 0xffffffffffffffff
	run 2 --offline "$W/b10.bin"
	has "$W/err" "$W/b10.bin: offset $((m0 + 16)): record 0: map 0: file_offset 0xffffffffffffffff + $len0 bytes overflows 64 bits"
}

# both_unwinders FILE OUT ARGS...: FILE read with the CFI walk from cached
# rules (unwind.c) and with libdw's own for every record
# (I915_STALLS_UNWIND=libdw): the same exit status, stdout (kept in OUT)
# and stderr but for the counts, which go to $W/counts
both_unwinders() {
	local f=$1 out=$2 rc1=0 rc2=0
	shift 2
	"$BIN" "$@" -v "$f" > "$out" 2> "$W/e1" || rc1=$?
	I915_STALLS_UNWIND=libdw "$BIN" "$@" -v "$f" > "$W/u2" 2> "$W/e2" || rc2=$?
	[ "$rc1" = "$rc2" ] || { echo "$f $*: exit status $rc1 from the cache, $rc2 by libdw"; return 1; }
	cmp "$out" "$W/u2" || { echo "$f $*: output differs"; diff "$out" "$W/u2" | head -20; return 1; }
	grep -h "CFI unwinds:" "$W/e1" | sed "s/^/cache /" >> "$W/counts"
	grep -h "CFI unwinds:" "$W/e2" | sed "s/^/libdw /" >> "$W/counts"
	sed -i "/CFI unwinds:/d" "$W/e1" "$W/e2"
	cmp "$W/e1" "$W/e2" || { echo "$f $*: stderr differs"; diff "$W/e1" "$W/e2" | head; return 1; }
}

# the CFI walk from cached rules gives what libdw's gives, byte for byte:
# on the files above and 186 variants of the two plain ones (snapshots cut
# at every 8 bytes and more, the stack pointer moved over the same bytes,
# the walk started at each return address, in the PLT and at register(R)
# rules; tests/ustack/variants.py); every record but the two whose CFA is a
# DWARF expression is unwound from the cache
t_v12_unwind_cache_exact() {
	local d=$W/ux v f
	rm -rf "$d" "$W/counts"
	mkdir -p "$d/out"
	: > "$W/counts"
	for v in fp nofp; do
		I915_STALLS_UNWIND=libdw run 0 --offline -F json "$W/$v.bin"
		cp "$W/out" "$W/$v.json"
		python3 "$HERE/ustack/variants.py" "$W/$v.bin" "$W/$v.json" "$d" "$v"
	done
	eq "$(find "$d" -name '*.bin' | wc -l)" 186
	for v in fp nofp anon repfp repnofp; do
		for fmt in text json folded; do
			both_unwinders "$W/$v.bin" "$d/out/$v.$fmt" --offline -F "$fmt"
		done
	done
	for f in "$d"/*.bin; do
		v=$(basename "$f" .bin)
		both_unwinders "$f" "$d/out/$v.json" --offline -F json
	done
	# what was compared: the walk's every kind of end
	eq "$(python3 - "$d"/out/*.json <<'PY'
import json, sys
ends, frames, cfi = set(), 0, 0
for p in sys.argv[1:]:
    s = json.load(open(p))["stalls"][0]
    ends.add((s.get("ustack_end") or {}).get("reason"))
    frames += len(s["ustack"])
    cfi += sum(bool(f["cfi"]) for f in s["ustack"])
print(sorted(ends, key=str), frames, cfi)
PY
)" "[None, 'no CFI for', 'no mapping for', 'snapshot exhausted'] 1020 597"
	eq "$(grep -c "^cache" "$W/counts") $(grep -c "^libdw" "$W/counts")" "199 199"
	eq "$(awk '{ c[$1] += $5; l[$1] += $10 } END { print c["cache"], l["cache"], c["libdw"], l["libdw"] }' "$W/counts")" "197 2 0 199"
}
