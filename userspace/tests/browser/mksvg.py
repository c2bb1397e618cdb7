#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write flame graph SVGs in the i915-stalls SVG contract (docs/bisect.md).

The reference writer of the contract, so that the script (src/flamegraph.js)
and its browser tests need no reader; the reader's SVG writer is to produce
the same structure and colours.

  mksvg.py flame IN.folded -o OUT.svg [--title T] [--unit us]
  mksvg.py diff OLD.folded NEW.folded -o OUT.svg [--title T] [--unit us]

Input: folded stacks ("a;b;c VALUE", VALUE a decimal number), as the reader's
-F folded writes them: the first frame is the task (comm-pid/tid), kernel
frames end in "_[k]" (stripped in the SVG, marked by class "kernel"),
unresolved frames start with "[unknown".  For diff, the values are what the
reader puts there: stall time per capture, OLD and NEW.
"""
import argparse
import os
import sys
from xml.sax.saxutils import escape, quoteattr

W = 1200          # svg width
PAD = 10          # left and right margin
FH = 16           # frame row height (rect 15 + 1 gap)
TOP = 52          # title, subtitle and controls above the first pane
BOTTOM = 28       # details and matched line below the last pane
MINW = 0.1        # frames narrower than this (px) are left out
CHARW = 7         # the writer's label rule: 7 px a character
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'src')


def fnv1a32(s):
    h = 0x811c9dc5
    for b in s.encode('utf-8'):
        h = ((h ^ b) * 0x01000193) & 0xffffffff
    return h


def kind_fill(kind, unresolved, name):
    """Ordinary flame graph: one hue per kind, varied by a hash of the name."""
    h = fnv1a32(name)
    b1, b2, b3 = h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff
    if kind == 'root':
        return (200, 200, 200)
    if unresolved:
        g = 170 + 40 * b1 // 255
        return (g, g, g)
    if kind == 'task':
        return (170 + 30 * b1 // 255, 170 + 30 * b1 // 255, 215 + 30 * b2 // 255)
    if kind == 'kernel':      # "aqua"
        return (50 + 60 * b3 // 255, 165 + 55 * b1 // 255, 165 + 55 * b2 // 255)
    return (205 + 50 * b3 // 255, 230 * b1 // 255, 55 * b2 // 255)     # user: "hot"


def diff_fill(delta, maxd):
    """Differential: red grew, blue shrank, by |delta| / maxd; grey unchanged."""
    if delta == 0 or maxd <= 0:
        return (230, 230, 230)
    r = min(1.0, abs(delta) / maxd)
    c = int(210.0 * (1.0 - r))
    return (255, c, c) if delta > 0 else (c, c, 255)


def num(v):
    """A decimal number, at most 3 fraction digits, no exponent."""
    if v == int(v):
        return '%d' % int(v)
    return ('%.3f' % v).rstrip('0').rstrip('.')


def label(name, w):
    n = int((w - 6) // CHARW)
    if n < 3:
        return ''
    return name if len(name) <= n else name[:n - 2] + '..'


class Node:
    def __init__(self, name, kind, unresolved):
        self.name, self.kind, self.unresolved = name, kind, unresolved
        self.value = 0.0
        self.old = 0.0
        self.kids = {}
        self.start = 0.0
        self.depth = 0

    def child(self, raw, kind):
        name = raw[:-4] if kind != 'task' and raw.endswith('_[k]') else raw
        if kind != 'task' and raw.endswith('_[k]'):
            kind = 'kernel'
        key = (name, kind)
        if key not in self.kids:
            self.kids[key] = Node(name, kind, name.startswith('[unknown'))
        return self.kids[key]


def read_folded(path):
    stacks = []
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line:
                continue
            stack, _, v = line.rpartition(' ')
            if not stack:
                sys.exit('%s:%d: no value' % (path, n))
            stacks.append((stack, float(v)))
    return stacks


def build(stacks, attr='value'):
    root = Node('all', 'root', False)
    for stack, v in stacks:
        node = root
        setattr(root, attr, getattr(root, attr) + v)
        for i, raw in enumerate(stack.split(';')):
            node = node.child(raw, 'task' if i == 0 else 'user')
            setattr(node, attr, getattr(node, attr) + v)
    return root


def merge_old(root, stacks):
    """Add the OLD values to the NEW tree's nodes of the same path."""
    root.old += sum(v for _, v in stacks)
    for stack, v in stacks:
        node = root
        for i, raw in enumerate(stack.split(';')):
            kind = 'task' if i == 0 else 'user'
            name = raw[:-4] if kind != 'task' and raw.endswith('_[k]') else raw
            if kind != 'task' and raw.endswith('_[k]'):
                kind = 'kernel'
            node = node.kids.get((name, kind))
            if node is None:
                break
            node.old += v


def walk(node, depth=0, start=0.0):
    """Pre-order, children by name; sets depth and start."""
    node.depth, node.start = depth, start
    yield node
    s = start
    for key in sorted(node.kids):
        k = node.kids[key]
        yield from walk(k, depth + 1, s)
        s += k.value


def max_depth(node):
    return 1 + max((max_depth(k) for k in node.kids.values()), default=0)


def assets(script):
    with open(os.path.join(SRC, 'flamegraph.css'), encoding='utf-8') as f:
        css = f.read()
    with open(script or os.path.join(SRC, 'flamegraph.js'), encoding='utf-8') as f:
        js = f.read()
    if ']]>' in css or ']]>' in js:
        sys.exit('flamegraph.css/js must not contain "]]>"')
    return css, js


def header(out, height, classes, unit, css, js, title, subtitle):
    out.append('<?xml version="1.0" standalone="no"?>')
    out.append('<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
               'viewBox="0 0 %d %d" class=%s data-unit=%s>'
               % (W, height, W, height, quoteattr(classes), quoteattr(unit)))
    out.append('<style><![CDATA[\n%s]]></style>' % css)
    out.append('<script type="text/ecmascript"><![CDATA[\n%s]]></script>' % js)
    out.append('<rect class="background" x="0" y="0" width="%d" height="%d" fill="#f8f8f0"/>'
               % (W, height))
    out.append('<text id="title" x="%d" y="20">%s</text>' % (W // 2, escape(title)))
    out.append('<text id="subtitle" x="%d" y="38">%s</text>' % (W // 2, escape(subtitle)))
    out.append('<text id="unzoom" class="control hide" x="%d" y="20">Reset Zoom</text>' % PAD)
    out.append('<text id="search" class="control" x="%d" y="20">Search</text>' % (W - PAD - 60))
    out.append('<text id="details" x="%d" y="%d"> </text>' % (PAD, height - 10))
    out.append('<text id="matched" x="%d" y="%d"> </text>' % (W - PAD, height - 10))


def pane(out, pid, plabel, root, top, span, frame_fill, frame_title, delta_of=None):
    """One pane: its root at the bottom, rows of FH px above; returns its height."""
    width = W - 2 * PAD
    depth = max_depth(root)
    k = width / span if span > 0 else 0
    out.append('<g class="pane" id=%s data-label=%s data-x="%d" data-width="%d" '
               'data-total="%s" data-span="%s">'
               % (quoteattr(pid), quoteattr(plabel), PAD, width, num(root.value), num(span)))
    out.append('<text class="pane-label" x="%d" y="%d">%s</text>' % (PAD, top + 12, escape(plabel)))
    skip_below = None
    for n in walk(root):
        if skip_below is not None:
            if n.depth > skip_below:
                continue
            skip_below = None
        w = n.value * k
        if w < MINW:
            skip_below = n.depth
            continue
        x = PAD + n.start * k
        y = top + 18 + (depth - 1 - n.depth) * FH
        cls = 'frame ' + n.kind + (' unresolved' if n.unresolved else '')
        attrs = 'class=%s data-name=%s data-depth="%d" data-start="%s" data-samples="%s"' % (
            quoteattr(cls), quoteattr(n.name), n.depth, num(n.start), num(n.value))
        if delta_of:
            attrs += ' data-delta="%s"' % num(delta_of(n))
        r, g, b = frame_fill(n)
        out.append('<g %s><title>%s</title><rect x="%.2f" y="%d" width="%.2f" height="%d" '
                   'rx="2" fill="rgb(%d,%d,%d)"/><text x="%.2f" y="%d">%s</text></g>'
                   % (attrs, escape(frame_title(n)), x, y, w, FH - 1, r, g, b, x + 3,
                      y + FH - 4, escape(label(n.name, w))))
    out.append('</g>')
    return 18 + depth * FH


def flame(args):
    stacks = read_folded(args.input)
    root = build(stacks)
    css, js = assets(args.script)
    depth = max_depth(root)
    height = TOP + 18 + depth * FH + BOTTOM
    unit = args.unit
    total = root.value
    out = []
    header(out, height, 'i915-flame', unit, css, js, args.title,
           '%d stacks, %s %s in all' % (len(stacks), num(total), unit))

    def title(n):
        return '%s (%s %s, %.2f%%)' % (n.name, num(n.value), unit,
                                        100 * n.value / total if total else 0)

    pane(out, 'pane-main', 'stall time', root, TOP, total,
         lambda n: kind_fill(n.kind, n.unresolved, n.name), title)
    out.append('</svg>')
    return out


def rel(new, old):
    if old == 0:
        return 'new' if new else '0%'
    return '%+.1f%%' % (100 * (new - old) / old)


def diff(args):
    old, new = read_folded(args.old), read_folded(args.new)
    new_keys = set(s for s, _ in new)
    gone = [(s, v) for s, v in old if s not in new_keys]
    nroot = build(new)
    merge_old(nroot, old)
    groot = build(gone)
    css, js = assets(args.script)
    unit = args.unit
    # the colour scale: the largest change of a frame other than the roots
    maxd = max([abs(n.value - n.old) for n in walk(nroot) if n.depth] +
               [n.value for n in walk(groot) if n.depth] + [0])
    span = max(nroot.value, groot.value)
    hn, hg = 18 + max_depth(nroot) * FH, 18 + max_depth(groot) * FH
    legend_h = 24
    height = TOP + legend_h + hn + 10 + hg + BOTTOM
    out = []
    tot_new, tot_old, tot_gone = nroot.value, nroot.old, groot.value
    header(out, height, 'i915-flame diff', unit, css, js, args.title,
           'NEW %s %s, OLD %s %s, change %s%s %s (%s); vanished stacks %s %s'
           % (num(tot_new), unit, num(tot_old), unit, '+' if tot_new >= tot_old else '',
              num(tot_new - tot_old), unit,
              rel(tot_new, tot_old), num(tot_gone), unit))
    # legend: swatches at full growth, full shrinkage, no change, kernel outline
    y = TOP
    out.append('<g id="legend">')
    x = PAD
    for text, fill, stroke in (('grew', diff_fill(1, 1), None), ('shrank', diff_fill(-1, 1), None),
                               ('unchanged', diff_fill(0, 1), None),
                               ('kernel frame', (255, 255, 255), 'rgb(0,140,140)')):
        st = ' stroke="%s" stroke-width="1.5"' % stroke if stroke else ''
        out.append('<rect class="swatch" x="%d" y="%d" width="24" height="12" fill="rgb(%d,%d,%d)"%s/>'
                   % ((x, y + 2) + fill + (st,)))
        out.append('<text x="%d" y="%d">%s</text>' % (x + 30, y + 12, escape(text)))
        x += 40 + 8 * len(text)
    out.append('<text x="%d" y="%d">colour: change in %s, full at %s %s; width: %s</text>'
               % (x + 10, y + 12, unit, num(maxd), unit, unit))
    out.append('</g>')

    def ntitle(n):
        return '%s: NEW %s %s, OLD %s %s, %s%s %s (%s)' % (
            n.name, num(n.value), unit, num(n.old), unit, '+' if n.value >= n.old else '',
            num(n.value - n.old), unit, rel(n.value, n.old))

    def gtitle(n):
        return '%s: vanished, OLD %s %s' % (n.name, num(n.value), unit)

    top = TOP + legend_h
    pane(out, 'pane-new', 'NEW', nroot, top, span, lambda n: diff_fill(n.value - n.old, maxd),
         ntitle, lambda n: n.value - n.old)
    pane(out, 'pane-gone', 'vanished', groot, top + hn + 10, span,
         lambda n: diff_fill(-n.value, maxd), gtitle, lambda n: -n.value)
    out.append('</svg>')
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    f = sub.add_parser('flame')
    f.add_argument('input')
    d = sub.add_parser('diff')
    d.add_argument('old')
    d.add_argument('new')
    for p in (f, d):
        p.add_argument('-o', '--output', required=True)
        p.add_argument('--title', default='i915 stalls')
        p.add_argument('--unit', default='us')
        p.add_argument('--script', help='another flamegraph.js (to test the tests)')
    args = ap.parse_args()
    out = flame(args) if args.cmd == 'flame' else diff(args)
    with open(args.output, 'w', encoding='utf-8') as o:
        o.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
