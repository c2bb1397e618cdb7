#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hold i915-stalls.1 to the code, both ways.

  mancheck.py CODE.txt i915-stalls.1 Kconfig.snippet

CODE.txt is mancheck's output.  The man page must have, and have only:
  - each option in OPTIONS, as ".It Fl x , Fl Fl name Ns = Ns Ar arg";
  - each wait site in the --site item (Dq);
  - each unresolved reason in the list of the Symbolization section (Dq);
  - each exit status in EXIT STATUS (.It Sy N);
  - each command in DESCRIPTION's Commands list (.It Cm name);
and every CONFIG_ option it names must be in Kconfig.snippet.
"""
import re
import sys

code, man, kconfig = sys.argv[1:]
want = {"option": set(), "site": set(), "reason": set(), "exit": set(), "command": set()}
shorts = {}
for line in open(code):
    kind, rest = line.rstrip("\n").split(" ", 1)
    if kind == "option":
        name, short, arg = rest.split(" ")
        want["option"].add(name)
        shorts[name] = (None if short == "-" else short, None if arg == "-" else arg)
    else:
        want[kind].add(rest)

text = open(man).read()
sections = {}
cur = None
for line in text.splitlines():
    m = re.match(r"\.Sh (.+)", line)
    if m:
        cur = m.group(1)
        sections[cur] = []
    elif cur:
        sections[cur].append(line)
errors = []

# options: every .It of OPTIONS names one; check short names and arguments
got_opts = {}
for line in sections.get("OPTIONS", []):
    if not line.startswith(".It Fl"):
        continue
    m = re.match(r"\.It (?:Fl (\S) , )?Fl Fl ([a-z0-9-]+)(?: Ns = Ns Ar (\S+))?$", line)
    if not m:
        errors.append(f"OPTIONS: cannot read {line!r}")
        continue
    got_opts[m.group(2)] = (m.group(1), m.group(3))
for name in sorted(want["option"] - got_opts.keys()):
    errors.append(f"option --{name} is in the code, not in the man page")
for name in sorted(got_opts.keys() - want["option"]):
    errors.append(f"option --{name} is in the man page, not in the code")
for name in sorted(want["option"] & got_opts.keys()):
    s, a = shorts[name]
    gs, ga = got_opts[name]
    if s != gs:
        errors.append(f"--{name}: short option {s} in the code, {gs} in the man page")
    if (a is None) != (ga is None):
        errors.append(f"--{name}: argument {a} in the code, {ga} in the man page")
# every "Fl Fl name" anywhere names an option of the code
for m in re.finditer(r"Fl Fl ([a-z0-9-]+)", text):
    if m.group(1) not in want["option"]:
        errors.append(f"the man page mentions --{m.group(1)}, which the code does not have")

# sites: the --site item, up to the next .It
body = "\n".join(sections.get("OPTIONS", []))
m = re.search(r"\.It Fl Fl site.*?\n(.*?)\n\.It ", body, re.S)
sites = set(re.findall(r"Dq (\S+?)(?: ,|\n| or| \.|$)", m.group(1))) if m else set()
if sites != want["site"]:
    errors.append(f"--site lists {sorted(sites)}, the code has {sorted(want['site'])}")

# reasons: the list after "unresolved frame says why" in the Symbolization part
m = re.search(r"\.Ss Unresolved frames\n(.*?)\n\.Ss |\.Ss Unresolved frames\n(.*?)\n\.Sh ", text, re.S)
block = (m.group(1) or m.group(2)) if m else ""
reasons = set(re.findall(r"^\.It Dq (.+)$", block, re.M))
for r in sorted(want["reason"] - reasons):
    errors.append(f"unresolved reason {r!r} is in the code, not in the man page")
for r in sorted(reasons - want["reason"]):
    errors.append(f"unresolved reason {r!r} is in the man page, not in the code")

# exit statuses
ex = set(re.findall(r"^\.It Sy (\d+)$", "\n".join(sections.get("EXIT STATUS", [])), re.M))
if ex != want["exit"]:
    errors.append(f"EXIT STATUS lists {sorted(ex)}, the code has {sorted(want['exit'])}")

# commands
cmds = set(re.findall(r"^\.It Cm (\S+)", "\n".join(sections.get("DESCRIPTION", [])), re.M))
if cmds != want["command"]:
    errors.append(f"the commands are {sorted(cmds)} in the man page, {sorted(want['command'])} in the code")

# kernel options named
kc = open(kconfig).read()
for c in sorted(set(re.findall(r"CONFIG_([A-Z0-9_]+)", text))):
    if not re.search(rf"^config {c}$", kc, re.M):
        errors.append(f"the man page names CONFIG_{c}, which Kconfig.snippet does not define")

for e in errors:
    print(e)
print(f"man page: {len(want['option'])} options, {len(want['site'])} sites, "
      f"{len(want['reason'])} reasons, {len(want['exit'])} exit statuses: {len(errors)} problems")
sys.exit(1 if errors else 0)
