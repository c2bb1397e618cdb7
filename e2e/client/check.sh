#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Host checks of gpu-demo without the kernel feature: it writes the delays
# to whatever --ctl names (a plain file here), reports what it did as JSON
# lines, fails cleanly on a missing control file, and (when gdb is
# installed) its frame-pointer chain at the write is exactly
#   gpu_wait <- wait_for_gpu <- submit_batch <- render_frame <- main.
# Then gpu-demo32: both its writes (int $0x80 and glibc's write()) write
# the delay, and its JSON lines are what check.py expects.  Then vkapp: it
# fails cleanly without a device, its loader's trampolines are tail calls,
# its driver has no frame pointers and the app has, and Debian's libdrm
# and glibc are as vkdrv.c says (what the guest test's expected user
# stacks rest on).  Then stallpie, issue 12's client (see below).
# Prints "ok NAME" / "not ok NAME" lines, and "skip NAME: REASON" for a
# check that needs what this host lacks (scripts/probe.sh): gpu-demo32's
# where i386 programs cannot run, the frame-pointer chain without a gdb
# that can run a program; the guest covers both.  Exit 1 if any failed.
set -uo pipefail

O=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/probe.sh
. "$here/../../scripts/probe.sh"
demo=$O/gpu-demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
res() { # ok? name
	if [ "$1" = 0 ]; then echo "ok $2"; else echo "not ok $2"; fail=1; fi
}

: > "$tmp/ctl"
"$demo" --ctl "$tmp/ctl" --tag host --frames 7,11 --worker 13 \
	--ready "$tmp/ready" > "$tmp/out.jsonl" 2> "$tmp/err"
rc=$?
python3 - "$tmp/out.jsonl" "$tmp/ctl" "$rc" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ctl = open(sys.argv[2]).read()
rc = int(sys.argv[3])
st = [l for l in lines if l["event"] == "stall"]
start = lines[0]
assert rc == 0, rc
assert start["event"] == "start" and start["comm"] == "gpu-demo", start
assert lines[-1] == {"event": "exit", "tag": "host", "pid": start["pid"], "failures": 0}, lines[-1]
got = sorted((s["thread"], s["delay_ms"], s["comm"], s["ret"], s["errno"]) for s in st)
assert got == [("main", 7, "gpu-demo", 1, ""), ("main", 11, "gpu-demo", 2, ""),
               ("worker", 13, "gpu-worker", 2, "")], got
main_tids = {s["tid"] for s in st if s["thread"] == "main"}
work_tids = {s["tid"] for s in st if s["thread"] == "worker"}
assert main_tids == {start["pid"]} and len(work_tids) == 1 and work_tids != main_tids
assert all(s["t0_ns"] <= s["t1_ns"] for s in st)
assert sorted(ctl) == sorted("71113"), ctl
PY
res $? client-host-plain-file
[ -e "$tmp/ready" ]; res $? client-host-ready-file

"$demo" --ctl "$tmp/missing" --frames 1 > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q 'No such file' "$tmp/err"; res $? client-host-missing-ctl

"$demo" write "$tmp/ctl" abc > "$tmp/w.json"
rc=$?
[ $rc = 0 ] && grep -qx '{"event":"write","path":"'"$tmp"'/ctl","value":"abc","pid":[0-9]*,"ret":3,"errno":""}' "$tmp/w.json"
res $? client-host-write
"$demo" write /dev/full x > "$tmp/w.json"
rc=$?
[ $rc = 1 ] && grep -q '"ret":-28,"errno":"ENOSPC"' "$tmp/w.json"; res $? client-host-write-errno

"$demo" --frames 1,x > /dev/null 2>&1; [ $? = 2 ]; res $? client-host-usage

# the 32-bit client: two writes of its delay, one by int $0x80, one by
# glibc; only where the host runs i386 programs at all (probe32.S)
if ! probe i386 "$O/probe32"; then
	skip_checks 'client32-host-*' "$probe_why; covered in the guest by compat-*" \
		client32-host-plain-file client32-host-usage
else
	: > "$tmp/ctl32"
	"$O/gpu-demo32" 9 "$tmp/ctl32" > "$tmp/out32.jsonl" 2> "$tmp/err32"
	rc=$?
	[ $rc = 0 ] || { echo "client32: exit $rc:" >&2; cat "$tmp/err32" >&2; }
	python3 - "$tmp/out32.jsonl" "$tmp/ctl32" "$rc" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert int(sys.argv[3]) == 0, sys.argv[3]
assert [(l["event"], l["via"], l["delay_ms"], l["ret"]) for l in lines] == \
    [("stall32", "int80", 9, 1), ("stall32", "libc", 9, 1)], lines
assert all(l["tid"] == l["pid"] and l["t0_ns"] <= l["t1_ns"] and
           0 < l["vdso"] < l["vdso_end"] < 1 << 32 for l in lines), lines
assert open(sys.argv[2]).read() == "99"
PY
	res $? client32-host-plain-file
	"$O/gpu-demo32" 0 > /dev/null 2>&1; [ $? = 2 ]; res $? client32-host-usage
fi

# vkapp, the Vulkan-shaped client: what the kernel's frame-pointer walk of
# its stack depends on, in the very binaries built and in Debian's libdrm.
# disasm FILE FUNC: the instructions of FUNC (by its symbol, dynamic too)
disasm() {
	local a sz
	read -r a sz < <({ nm -S --defined-only "$1" 2>/dev/null; nm -D -S --defined-only "$1"; } |
		awk -v f="$2" '{ sub(/@.*/, "", $4) } $4 == f { print $1, $2; exit }')
	[ -n "$a" ] || { echo "check: no $2 in $1" >&2; return 1; }
	objdump -d --no-show-raw-insn --start-address=$((16#$a)) --stop-address=$((16#$a + 16#$sz)) "$1" |
		awk '/^ *[0-9a-f]+:\t/ { sub(/^ *[0-9a-f]+:\t/, ""); sub(/ *#.*/, ""); print }'
}
"$O/vkapp" --render "$tmp/missing" --mock "$tmp/missing" > "$tmp/vk.out" 2> "$tmp/vk.err"
rc=$?
[ $rc = 1 ] && grep -qx "vkdrv: $tmp/missing: No such file or directory" "$tmp/vk.err" &&
	[ ! -s "$tmp/vk.out" ]
res $? vkapp-host-no-device
"$O/vkapp" --ms 1,2 > /dev/null 2>&1; [ $? = 2 ]; res $? vkapp-host-usage
# the loader's trampolines are tail calls: the dispatch table, then a jump
ok=0
for f in vkWaitForFences vkWaitSemaphores; do
	disasm "$O/libvkloader.so" $f | sed -n '1,2p' | tr -s ' ' > "$tmp/tramp"
	printf 'mov (%%rdi),%%rax\njmp *0x%s(%%rax)\n' "$( [ $f = vkWaitForFences ] && echo 40 || echo 48)" |
		cmp -s - "$tmp/tramp" || { echo "vkapp: $f is not a tail call:" >&2; cat "$tmp/tramp" >&2; ok=1; }
done
res $ok vkloader-tail-calls
# the driver's functions keep no frame pointer; vkapp's own functions do
ok=0
for f in $(nm --defined-only "$O/libvkdrv.so" | awk '$3 ~ /^(drv_|vkdrv_)/ { print $3 }'); do
	disasm "$O/libvkdrv.so" "$f" > "$tmp/fn"
	! grep -q 'mov    %rsp,%rbp' "$tmp/fn" || { echo "vkdrv: $f keeps a frame pointer" >&2; ok=1; }
done
[ "$(nm --defined-only "$O/libvkdrv.so" | grep -c ' t drv_')" -ge 10 ] || ok=1
res $ok vkdrv-no-frame-pointers
ok=0
for f in draw_frame wait_timeline timeline_main main; do
	disasm "$O/vkapp" $f > "$tmp/fn"
	grep -q 'mov    %rsp,%rbp' "$tmp/fn" || { echo "vkapp: $f has no frame pointer" >&2; ok=1; }
done
res $ok vkapp-frame-pointers
# Debian's libdrm: no frame pointers, and drmIoctl() keeps its ioctl
# argument in %rbp across glibc's ioctl(), which keeps no frame either: so
# the walk reads the argument struct as the first frame (see vkdrv.c)
drm=$(ldd "$O/libvkdrv.so" | awk '$1 == "libdrm.so.2" { print $3 }')
ok=1
if [ -n "$drm" ] && disasm "$drm" drmIoctl > "$tmp/drmioctl" && disasm "$drm" drmSyncobjWait > "$tmp/drmwait"; then
	grep -q 'mov    %rdx,%rbp' "$tmp/drmioctl" && ! grep -q 'mov    %rsp,%rbp' "$tmp/drmioctl" "$tmp/drmwait" &&
		grep -q 'call.*<ioctl@plt>' "$tmp/drmioctl" && ok=0
	[ $ok = 0 ] || { echo "vkapp: $drm's drmIoctl is not as vkdrv.c describes:" >&2; cat "$tmp/drmioctl" >&2; }
fi
res $ok libdrm-drmioctl-rbp-is-arg
libc=$(ldd "$O/vkapp" | awk '$1 == "libc.so.6" { print $3 }')
ok=1
if [ -n "$libc" ] && disasm "$libc" ioctl > "$tmp/ioctl"; then
	grep -q '^syscall' "$tmp/ioctl" && ! grep -q 'rbp' "$tmp/ioctl" && ok=0
fi
res $ok libc-ioctl-no-frame

# stallpie (issue 12): both builds write each delay through glibc's
# write(), also through the anonymous trampoline, and exit 0; wait_idle
# and present_frame are no tail calls (code follows their call of
# write@plt / wait_idle@plt), so they have frames for CFI to find; the
# nofp build's wait_idle and the fp build's differ in keeping %rbp as a
# frame pointer; the v2 library has another build-id and its decoy where
# the old wait_idle returns from write().
for v in fp nofp; do
	: > "$tmp/pie-ctl"
	"$O/stallpie-$v/stallpie" --ctl "$tmp/pie-ctl" --tag host write:5 anon:7 \
		> "$tmp/pie-$v.jsonl" 2> "$tmp/pie-$v.err"
	rc=$?
	python3 - "$tmp/pie-$v.jsonl" "$tmp/pie-ctl" "$rc" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert int(sys.argv[3]) == 0
assert [l["event"] for l in lines] == ["start", "stall", "stall", "exit"], lines
assert lines[0]["comm"] == "stallpie"
st = lines[1:3]
assert [(l["kind"], l["site"], l["delay_ms"], l["ret"], l["errno"]) for l in st] == \
    [("write", "request_wait", 5, 1, ""), ("anon", "request_wait", 7, 1, "")], st
assert st[1]["anon_end"] - st[1]["anon_start"] == 4096 and "anon_start" not in st[0]
assert lines[3]["failures"] == 0
assert open(sys.argv[2]).read() == "57", open(sys.argv[2]).read()
PY
	res $? "stallpie-$v-host-run"
	objdump -d --no-show-raw-insn "$O/stallpie-$v/libstallio.so" |
		sed -n '/<wait_idle>:/,/^$/p' > "$tmp/wi-$v"
	objdump -d --no-show-raw-insn "$O/stallpie-$v/libstallfmt.so" |
		sed -n '/<present_frame>:/,/^$/p' > "$tmp/pf-$v"
	ok=1
	grep -A1 'call.*<write@plt>' "$tmp/wi-$v" | tail -n 1 | grep -qv 'ret\|jmp' &&
		grep -A1 'call.*<ioctl@plt>' "$tmp/wi-$v" | tail -n 1 | grep -qv 'ret\|jmp' &&
		grep -A1 'call.*<wait_idle@plt>' "$tmp/pf-$v" | tail -n 1 | grep -qv 'ret\|jmp' &&
		! grep -q 'jmp.*@plt' "$tmp/wi-$v" "$tmp/pf-$v" && ok=0
	res $ok "stallpie-$v-no-tail-calls"
done
ok=1
grep -q 'mov *%rsp,%rbp' "$tmp/wi-fp" && ! head -n 4 "$tmp/wi-nofp" | grep -q 'mov *%rsp,%rbp' && ok=0
res $ok stallpie-fp-nofp-frames
bid() { readelf -n "$1" | sed -n 's/^ *Build ID: *//p'; }
# the return address into wait_idle: the instruction after its call of write()
off=$(grep -A1 'call.*<write@plt>' "$tmp/wi-fp" | tail -n 1 | awk -F: '{ gsub(/ /, "", $1); print $1 }')
dec=$(nm -S "$O/stallpie-v2/libstallio.so" | awk '$4 == "stallio_v2_decoy" { print $1, $2 }')
ok=1
[ -n "$off" ] && [ -n "$dec" ] && [ "$(bid "$O/stallpie-fp/libstallio.so")" != "$(bid "$O/stallpie-v2/libstallio.so")" ] &&
	python3 -c "import sys; o, s, n = (int(x, 16) for x in sys.argv[1:]); sys.exit(0 if s <= o < s + n else 1)" \
		"$off" $dec && ok=0
res $ok stallpie-v2-decoy-covers-wait-idle

# under gdb, where gdb is installed and can run a program (ptrace)
if ! probe gdb /bin/true; then
	skip_checks client-host-fp-chain \
		"$probe_why; the guest checks the chain through the kernel (stall-main-*)" \
		client-host-fp-chain
else
	: > "$tmp/ctl"
	gdb -q -batch -x "$here/fpwalk.gdb" --args "$demo" --ctl "$tmp/ctl" --frames 5 \
		> "$tmp/gdb.out" 2>&1
	grep -o '^[A-Za-z_][A-Za-z0-9_]* + [0-9]* in section .text' "$tmp/gdb.out" |
		awk '{print $1}' > "$tmp/chain"
	printf '%s\n' gpu_wait wait_for_gpu submit_batch render_frame main > "$tmp/want"
	head -n 5 "$tmp/chain" | cmp -s - "$tmp/want"
	rc=$?
	[ $rc = 0 ] || { echo "client: frame-pointer chain under gdb:" >&2; cat "$tmp/gdb.out" >&2; }
	res $rc client-host-fp-chain
fi
exit $fail
