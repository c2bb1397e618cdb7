#!/bin/bash
# SPDX-License-Identifier: MIT
# make install into a scratch DESTDIR, then use what was installed: the
# reader decodes a log, i915-stalls-bisect takes captures and gives a
# verdict with the reader installed beside it (none in PATH), man shows
# the page, make uninstall removes it all.
#   install_test.sh RESULTS WORKDIR
# One "ok NAME" / "not ok NAME" line per test on stdout, appended to RESULTS.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
U=$(cd "$HERE/.." && pwd)
RES=$1
W=$2
rm -rf "$W"
mkdir -p "$W"
W=$(realpath "$W")
D=$W/destdir
nfail=0

t() {
	local name=$1 rc
	shift
	( set -e; "$@" ) > "$W/why" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok $name" | tee -a "$RES"
	else
		echo "not ok $name" | tee -a "$RES"
		sed 's/^/#   /' "$W/why" | tail -20
		nfail=$((nfail + 1))
	fi
}

t_install_files() {
	make -s -C "$U" install DESTDIR="$D" PREFIX=/usr
	[ "$(find "$D" -type f | sort | sed "s|^$D||")" = "/usr/bin/i915-stalls
/usr/bin/i915-stalls-bisect
/usr/share/man/man1/i915-stalls.1" ]
	[ "$(stat -c %a "$D/usr/bin/i915-stalls" "$D/usr/bin/i915-stalls-bisect" "$D/usr/share/man/man1/i915-stalls.1" | tr '\n' ' ')" = "755 755 644 " ]
	cmp "$U/i915-stalls.1" "$D/usr/share/man/man1/i915-stalls.1"
}

# the installed reader, in a PATH of its own
t_installed_reader() {
	local out
	out=$(env -i PATH="$D/usr/bin:/usr/bin:/bin" i915-stalls --version)
	[[ $out == "i915-stalls "*"(stall format 1.0 to 1.4"* ]] || { echo "$out"; return 1; }
	"$U/build/mkstall" "$W/s.bin" < "$U/tests/specs/golden.spec"
	env -i PATH="$D/usr/bin:/usr/bin:/bin" i915-stalls summary --offline \
		--kallsyms "$U/tests/specs/kallsyms.golden" "$W/s.bin" > "$W/sum" 2>&1 || true
	grep -q "6 stalls, 14.120 ms stalled" "$W/sum" || { cat "$W/sum"; return 1; }
	env -i PATH="$D/usr/bin:/usr/bin:/bin" i915-stalls --offline -F pprof -o "$W/s.pb.gz" "$W/s.bin" 2> /dev/null || true
	[ "$(head -c 2 "$W/s.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]
}

# i915-stalls-bisect as installed: captures from a fake debugfs, then a
# run whose verdict comes from the reader beside it (PATH has none)
t_installed_bisect() {
	local dri=$W/dri rc=0
	mkdir -p "$dri/0"
	echo 0 > "$dri/0/i915_stalls_enable"
	echo 1000 > "$dri/0/i915_stalls_threshold_us"
	: > "$dri/0/i915_stalls_clear"
	: > "$dri/0/i915_stalls"
	"$U/build/mkstall" "$W/cap.bin" <<'SPEC'
header threshold_ns=1000000
rec cpu=0 start=1000 dur=2000000 comm=work
rec cpu=0 start=5000000 dur=3000000 comm=work
SPEC
	printf '#!/bin/sh\ncp %s %s\n' "$W/cap.bin" "$dri/0/i915_stalls" > "$W/work.sh"
	chmod +x "$W/work.sh"
	if env -i PATH=/usr/bin:/bin sh -c 'command -v i915-stalls'; then
		echo "an i915-stalls in /usr/bin or /bin: this test cannot tell which reader ran"
		return 1
	fi
	env -i PATH=/usr/bin:/bin "$D/usr/bin/i915-stalls-bisect" capture -o "$W/ref" -n 3 \
		--debugfs="$dri" -- "$W/work.sh" > "$W/cap.log" 2>&1
	[ "$(ls "$W/ref" | tr '\n' ' ')" = "capture-1.bin capture-2.bin capture-3.bin " ]
	env -i PATH=/usr/bin:/bin "$D/usr/bin/i915-stalls-bisect" run --ref="$W/ref" -n 3 \
		--debugfs="$dri" -D --offline -- "$W/work.sh" > "$W/run.log" 2>&1 || rc=$?
	[ $rc = 0 ] || { echo "run: exit $rc"; cat "$W/run.log"; return 1; }
	grep -q ": good" "$W/run.log" || { cat "$W/run.log"; return 1; }
}

t_installed_man_page() {
	command -v man > /dev/null || { echo "no man: apt-get install man-db (userspace/DEPENDS)"; return 1; }
	MANPAGER=cat MANWIDTH=80 man -l "$D/usr/share/man/man1/i915-stalls.1" > "$W/man.txt" 2> "$W/man.err"
	grep -qE "i915-stalls (-|—) decode and symbolize the i915 log of CPU waits on the GPU" "$W/man.txt"
	grep -q "go tool pprof" "$W/man.txt"
	[ ! -s "$W/man.err" ] || { cat "$W/man.err"; return 1; }
	# found by name where it was installed
	MANPATH=$D/usr/share/man MANPAGER=cat man i915-stalls 2> /dev/null | grep -q "I915-STALLS(1)"
}

t_uninstall() {
	make -s -C "$U" uninstall DESTDIR="$D" PREFIX=/usr
	[ -z "$(find "$D" -type f)" ]
}

t install_files t_install_files
t installed_reader t_installed_reader
t installed_bisect_helper t_installed_bisect
t installed_man_page t_installed_man_page
t uninstall t_uninstall
[ "$nfail" = 0 ]
