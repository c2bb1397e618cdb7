# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Format 1.3 (sourced by run.sh after format12.sh, whose files and poke12
# it reuses): the same layout as 1.2, with a ustack_map value more
# (FRAME_CHANGED, 0xfb, so a map index of 1.2 is a flag of 1.3), three
# record flags and a header flag that says the kernel hid its addresses.

# v13 FILE OUT POKES...: a copy of a 1.2 file of format12.sh made 1.3
v13() {
	local src=$1 dst=$2
	shift 2
	poke12 "$src" "$dst" 10 2 3 "$@"
}
# the record flags of ustack-gen's stall, as it wrote them
rec_flags() {
	python3 -c "import sys; print(int.from_bytes(open(sys.argv[1],'rb').read()[$((R0 + 94)):$((R0 + 96))],'little'))" "$1"
}

# 0xfb is a flag of 1.3: the frame's mapping changed near the stall, so the
# frame is not named (the frames before and after it still are); in a 1.2
# file the same byte is a map index, here one the record does not have
t_v13_frame_changed() {
	local fl
	fl=$(rec_flags "$W/fp.bin")
	# ustack_map[1]: the frame-pointer chain's run_frame
	v13 "$W/fp.bin" "$W/chg.bin" $((R0 + 94)) 2 $((fl | 0x2000)) $((R0 + 681)) 1 $((0xfb))
	# exit 1: a frame unresolved
	run 1 --offline -F json "$W/chg.bin"
	json_ok "$W/out"
	eq "$(jq_ "$W/out" '[(f["symbol"], f["reason"]) for f in d["stalls"][0]["ustack"]][:5], d["inputs"][0]["version"], "maps_changed" in d["stalls"][0]["flags"]')" \
		"[('fake_ioctl', None), ('b_wait', None), ('a_submit', None), (None, 'map changed'), ('main', None)] 1.3 True"
	run 1 --offline "$W/chg.bin"
	has_re "$W/out" "^    #3  0x[0-9a-f]{16} \[unknown: map changed\]$"
	# the same bytes as 1.2: map 251 of a record with fewer
	poke12 "$W/chg.bin" "$W/chg12.bin" 10 2 2
	run 2 --offline "$W/chg12.bin"
	has_re "$W/err" "chg12.bin: offset $((R0 + 681)): record 0: ustack_map\[1\] 251: no such map \(map_count [0-9]+\)$"
	# map_max: 252 was 1.2's largest, 251 is 1.3's
	v13 "$W/fp.bin" "$W/mm.bin" 296 4 252
	run 2 --offline "$W/mm.bin"
	has "$W/err" "$W/mm.bin: offset 296: map_max 252 exceeds 251 for format 1.3"
}

# what a record of a task that is not dumpable, or whose mmap lock was held,
# says: the flag by name in JSON, one line in the report; a 1.2 file does
# not define those bits (a newer writer's unknown bits are shown in hex)
t_v13_ustack_flags() {
	local fl
	# no snapshot: the frame-pointer chain, as the kernel leaves it
	poke12 "$W/fp.bin" "$W/nosnap13.bin" $((R0 + 648)) 4 0
	fl=$(rec_flags "$W/nosnap13.bin")
	v13 "$W/nosnap13.bin" "$W/nodump.bin" $((R0 + 94)) 2 $((fl | 0x800))
	v13 "$W/nosnap13.bin" "$W/nolk.bin" $((R0 + 94)) 2 $((fl | 0x1000))
	run 0 --offline -F json "$W/nodump.bin"
	eq "$(jq_ "$W/out" '[x for x in d["stalls"][0]["flags"] if x.startswith("ustack")]')" "['ustack_nodump']"
	run 0 --offline "$W/nodump.bin"
	has "$W/out" "  (no stack copy: the process is not dumpable)"
	hasnt "$W/out" "the mmap lock was held"
	run 0 --offline "$W/nolk.bin"
	has "$W/out" "  (no stack copy: the mmap lock was held)"
	run 0 --offline -F json "$W/nolk.bin"
	eq "$(jq_ "$W/out" '[x for x in d["stalls"][0]["flags"] if x.startswith("ustack")]')" "['ustack_nolock']"
	poke12 "$W/nodump.bin" "$W/nodump12.bin" 10 2 2
	run 0 --offline -F json "$W/nodump12.bin"
	eq "$(jq_ "$W/out" '"0x800" in d["stalls"][0]["flags"], "ustack_nodump" in d["stalls"][0]["flags"]')" "True False"
	run 0 --offline "$W/nodump12.bin"
	hasnt "$W/out" "no stack copy"
}

# a reader the kernel hid its addresses from (kptr_restrict, lockdown): each
# kernel frame and the caller say so, the header says so once per input,
# and no kallsyms is even looked for; unattributed is unknown since 1.3
t_v13_kaddr_hidden() {
	local v
	for v in 2 3; do
		mk "$W/kh$v.bin" <<SPEC
header version_minor=$v flags=0x5 unattributed=0
cpu 0 recorded=1
rec cpu=0 seq=0 start=1000 dur=5000000 pid=7 tgid=7 comm=hid site=0 caller=0 k=0,0 kdepth=2
SPEC
	done
	# exit 1: frames unresolved
	run 1 --kallsyms "$KS" -F json "$W/kh3.bin"
	eq "$(jq_ "$W/out" 'd["inputs"][0]["kernel_addresses_hidden"], d["inputs"][0]["unattributed"], [f["reason"] for f in d["stalls"][0]["kstack"]]')" \
		"True None ['kernel addresses hidden', 'kernel addresses hidden']"
	run 1 --kallsyms "$KS" "$W/kh3.bin"
	has "$W/out" "# kernel addresses hidden from the reader of the file (kptr_restrict, lockdown): kernel frames unresolved"
	hasnt "$W/out" "unattributed waits"
	hasnt "$W/err" "KASLR"
	# 1.2 defines no such bit: its frames are looked up (and found in none)
	run 0 --kallsyms "$KS" -F json "$W/kh2.bin"
	eq "$(jq_ "$W/out" 'd["inputs"][0]["kernel_addresses_hidden"], d["inputs"][0]["unattributed"], "kernel addresses hidden" in [f["reason"] for f in d["stalls"][0]["kstack"]]')" \
		"False 0 False"
	run 0 --kallsyms "$KS" "$W/kh2.bin"
	has "$W/out" "# 0 unattributed waits"
	hasnt "$W/out" "kernel addresses hidden"
}
