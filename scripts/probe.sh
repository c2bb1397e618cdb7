# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# What a host may lack although it has all the project requires (Debian 12,
# root, the packages of scripts/setup.sh, QEMU, the kernel source): a check
# that needs such a thing asks its probe first and, when the answer is
# "missing", writes "skip NAME: REASON" instead of a result, never "ok"
# (scripts/test.sh counts skips apart and names them).  What the project
# requires is no probe's business: its absence fails the checks.  Sourced
# by e2e/client/check.sh, scripts/setup.sh, scripts/kunit.sh and the
# reader's tests (userspace/tests/).
#
#   probe WHAT [ARG]   status 0 if the host has WHAT, 1 if it lacks it, with
#                      the reason in $probe_why.  WHAT is one of:
#     i386 FILE        FILE, a static i386 program that exits 32 (e2e/client/
#                      probe32.S), runs
#     gdb FILE         gdb is installed and runs FILE to its end (ptrace)
#     chromium BIN     headless BIN starts and renders a page
#     npm-registry     npm ping answers
#     loopback         a TCP connection to 127.0.0.1 works
#     map-files        /proc/PID/map_files of another process opens
#     proc-mem         /proc/PID/mem of another process (not a child) reads
#     sanitizers CC    a program built by CC with -fsanitize=address,undefined
#                      runs with the leak checker on
#     kvm              /dev/kvm opens read-write
#   A probe that cannot even be set up (no FILE, its program does not
#   build) answers "present": the checks then run, and fail on their own.
#
#   skip_checks LABEL REASON NAME...
#                      one "skip NAME: REASON" line per NAME on stdout (the
#                      result lines), and one visible line on stderr:
#                      "skip LABEL: REASON"
#
# I915_STALL_PROBE="WHAT=present WHAT=missing ..." forces answers, only to
# test the harness itself: with WHAT=missing the skip lines must appear,
# with WHAT=present on a host that lacks WHAT the checks must fail.

probe_why=

probe() { # WHAT [ARG]
	local what=$1 w
	shift
	probe_why=
	for w in ${I915_STALL_PROBE:-}; do
		case $w in
		"$what=present")
			return 0 ;;
		"$what=missing")
			probe_why="forced by I915_STALL_PROBE=$what=missing"
			return 1 ;;
		esac
	done
	# a probe that does not exist finds nothing missing: the checks run
	declare -F "probe_${what//-/_}" > /dev/null ||
		{ echo "probe: no probe '$what' (scripts/probe.sh)" >&2; return 0; }
	"probe_${what//-/_}" "$@"
}

skip_checks() { # LABEL REASON NAME...
	local label=$1 why=$2 n
	shift 2
	for n in "$@"; do
		echo "skip $n: $why"
	done
	echo "skip $label: $why" >&2
}

probe_i386() { # FILE
	[ -f "$1" ] || return 0
	probe_why=$(python3 - "$1" <<-'PY'
	import errno, signal, subprocess, sys
	try:
	    r = subprocess.run([sys.argv[1]], stdin=subprocess.DEVNULL, capture_output=True,
	                       timeout=60)
	except OSError as e:
	    print(f"this host cannot execute i386 programs "
	          f"({errno.errorcode.get(e.errno, e.errno)})")
	    sys.exit(1)
	except subprocess.TimeoutExpired:
	    print("this host does not run i386 programs (the probe hung)")
	    sys.exit(1)
	if r.returncode < 0:
	    print(f"this host does not run i386 programs (the probe was killed by "
	          f"{signal.Signals(-r.returncode).name})")
	    sys.exit(1)
	if r.returncode != 32:
	    print(f"this host does not run i386 programs (the probe exited {r.returncode}, "
	          f"not 32)")
	    sys.exit(1)
	PY
	)
}

probe_gdb() { # FILE
	local out
	command -v gdb > /dev/null || { probe_why="gdb is not installed"; return 1; }
	[ -x "$1" ] || return 0
	out=$(timeout 120 gdb -nx -q -batch -ex run --args "$1" 2>&1 < /dev/null)
	grep -q '^\[Inferior 1 (process [0-9]*) exited normally\]' <<< "$out" && return 0
	probe_why="gdb cannot run a program here: $(grep -v '^$' <<< "$out" | tail -n 1)"
	return 1
}

probe_chromium() { # BIN
	local d out rc
	[ -x "$1" ] || return 0
	d=$(mktemp -d)
	# check.js's flags, and a page of its own
	timeout 120 "$1" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$d/profile" --dump-dom 'data:text/html,<p>i915-stall-probe</p>' \
		> "$d/out" 2> "$d/err" < /dev/null
	rc=$?
	if grep -q '<p>i915-stall-probe</p>' "$d/out"; then
		rm -rf "$d"
		return 0
	fi
	out=$(grep -v 'dbus\|^$' "$d/err" | tail -n 1)
	probe_why="headless chromium cannot start here (exit $rc${out:+: $out})"
	rm -rf "$d"
	return 1
}

probe_npm_registry() {
	local out rc
	command -v npm > /dev/null || return 0
	out=$(timeout 60 npm ping --fetch-retries=0 --fetch-timeout=30000 2>&1 < /dev/null)
	rc=$?
	[ $rc = 0 ] && return 0
	probe_why="the npm registry cannot be reached ($(npm config get registry 2>/dev/null): "
	if [ $rc = 124 ]; then
		probe_why+="no answer in 60 s)"
	else
		probe_why+="$(sed -n 's/^npm error code //p' <<< "$out" | head -n 1))"
	fi
	return 1
}

probe_loopback() {
	probe_why=$(python3 - <<-'PY'
	import socket, sys
	try:
	    s = socket.socket()
	    s.bind(("127.0.0.1", 0))
	    s.listen(1)
	    c = socket.create_connection(s.getsockname(), timeout=10)
	    c.close()
	except OSError as e:
	    print(f"no loopback network here (127.0.0.1: {e.strerror or e})")
	    sys.exit(1)
	PY
	)
}

# another process of ours, not a child of the one that reads it: as the
# reader's tests read their fixtures' (a sibling, under Yama's ptrace_scope 1)
probe_other_process() { # CMD: run CMD with $pid, a sibling process
	local pid rc _
	sleep 60 > /dev/null 2>&1 &
	pid=$!
	# once it is sleep, no longer the shell that forked it
	for _ in $(seq 100); do
		[ "$(cat "/proc/$pid/comm" 2> /dev/null)" = sleep ] && break
		sleep 0.05
	done
	"$@" "$pid"
	rc=$?
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	return $rc
}

probe_map_files_of() { # PID
	local f
	for f in /proc/"$1"/map_files/*; do
		head -c 4 "$f" > /dev/null 2>&1 && return 0
	done
	probe_why="/proc/PID/map_files cannot be read here (it needs CAP_SYS_ADMIN or"
	probe_why+=" CAP_CHECKPOINT_RESTORE in the initial user namespace)"
	return 1
}
probe_map_files() { probe_other_process probe_map_files_of; }

probe_proc_mem_of() { # PID
	local err
	err=$(python3 - "$1" 2>&1 <<-'PY'
	import sys
	pid = sys.argv[1]
	lo = int(open(f"/proc/{pid}/maps").readline().split("-")[0], 16)
	with open(f"/proc/{pid}/mem", "rb") as f:
	    f.seek(lo)
	    assert len(f.read(4)) == 4
	PY
	) && return 0
	probe_why="/proc/PID/mem of another process cannot be read here (ptrace access:"
	probe_why+=" Yama's ptrace_scope, no CAP_SYS_PTRACE): $(tail -n 1 <<< "$err")"
	return 1
}
probe_proc_mem() { probe_other_process probe_proc_mem_of; }

probe_sanitizers() { # CC
	local d out
	d=$(mktemp -d)
	printf 'int main(void) { return 0; }\n' > "$d/p.c"
	if ! $1 -fsanitize=address,undefined -fno-omit-frame-pointer -o "$d/p" "$d/p.c" \
		> /dev/null 2>&1; then
		rm -rf "$d"
		return 0
	fi
	out=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 timeout 60 "$d/p" 2>&1 < /dev/null)
	local rc=$?
	rm -rf "$d"
	[ $rc = 0 ] && return 0
	probe_why="a program built with -fsanitize=address,undefined ($1) cannot run here"
	probe_why+=" (exit $rc: $(grep -v '^$' <<< "$out" | head -n 1))"
	return 1
}

probe_kvm() {
	[ -c /dev/kvm ] || { probe_why="no /dev/kvm"; return 1; }
	{ : <> /dev/kvm; } 2> /dev/null && return 0
	probe_why="/dev/kvm cannot be opened read-write"
	return 1
}
