#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tree's file-level include and call graphs, checked against its layers.

Usage: tools/callgraph.py [--edges] [--layers] [--source DIR] BUILDDIR

Includes: every C file the tree tracks (git ls-files, else a walk of the
source tree) is read for its `#include "NAME"` lines; NAME is the file of
that name in the tree (headers are included by name, so a name is one
file; a name found in the including file's own folder wins). A file of
the tree including one that is not in it (a system header) is no edge.

Calls: BUILDDIR/compile_commands.json names each object file and its
source; nm(1) lists what each object defines (global T, D, B, R, C
symbols) and what it uses (U). File A -> file B when A uses a symbol B
defines: a call, or a function or variable A takes the address of.
A symbol defined in several files (programs' own helpers of the same
name) resolves to the definer nearest A (sharing the longest folder
prefix); a tie is no edge. Only what BUILDDIR compiled is seen: fuzz/
needs a -Dfuzz=enabled build, and a static inline function's calls are
its header's (seen through the includes).

Layers: the table in docs/architecture.md under "## The layers" names
each layer, the files it holds (folder prefixes, or files; the longest
prefix wins) and the layers it may use. A file may include and call the
files of its own layer and of the layers its row names ("*": any), and
no other; a file of no layer is reported.

Circles: a strongly connected set of two or more files in the include
graph or in the call graph. None of them can be understood, changed or
tested without the others.

Prints the forbidden edges and the circles; exit status 0 when there are
none, 1 when there are, 2 when it could not run. --edges also prints
every edge, --layers the layer of every file.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

C_EXT = ('.c', '.h')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SYMBOL_DEF = set('TDBRCGSV')


def tree_files(src):
    try:
        out = subprocess.run(['git', '-C', src, 'ls-files'],
                             capture_output=True, text=True, check=True)
        files = out.stdout.split()
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(src):
            dirs[:] = [d for d in dirs if not d.startswith(('.', 'build'))]
            for n in names:
                files.append(os.path.relpath(os.path.join(root, n), src))
    return sorted(f for f in files if f.endswith(C_EXT)
                  and os.path.exists(os.path.join(src, f)))


def include_edges(src, files):
    by_name = collections.defaultdict(list)
    for f in files:
        by_name[os.path.basename(f)].append(f)
    edges = collections.defaultdict(set)
    problems = []
    for f in files:
        with open(os.path.join(src, f), errors='replace') as fh:
            text = fh.read()
        for name in INCLUDE.findall(text):
            if name.startswith('../'):
                problems.append('%s: #include "%s": include by name, '
                                'never "../"' % (f, name))
            here = os.path.normpath(os.path.join(os.path.dirname(f), name))
            if here in by_name.get(os.path.basename(name), ()):
                target = here
            else:
                cands = [c for c in by_name.get(os.path.basename(name), ())
                         if c.endswith('/' + name) or c == name]
                if len(cands) != 1:
                    continue  # a system header, or generated
                target = cands[0]
            if target != f:
                edges[f].add(target)
    return edges, problems


def nm_symbols(objs):
    """{object: (defined symbols, used symbols)}, nm run on many at once."""
    out = {o: (set(), set()) for o in objs}
    for i in range(0, len(objs), 200):
        chunk = objs[i:i + 200]
        res = subprocess.run(['nm', '-A'] + chunk, capture_output=True,
                             text=True)
        for line in res.stdout.splitlines():
            obj, _, rest = line.partition(':')
            f = rest.split()
            if obj not in out:
                continue
            if len(f) == 3 and f[1] in SYMBOL_DEF:
                out[obj][0].add(f[2])
            elif len(f) == 2 and f[0] == 'U':
                out[obj][1].add(f[1])
    return out


def common_prefix(a, b):
    pa, pb = a.split('/'), b.split('/')
    n = 0
    while n < min(len(pa), len(pb)) - 1 and pa[n] == pb[n]:
        n += 1
    return n


def call_edges(src, build, tracked):
    path = os.path.join(build, 'compile_commands.json')
    with open(path) as fh:
        commands = json.load(fh)
    defs = collections.defaultdict(set)
    uses = collections.defaultdict(set)
    srcreal = os.path.realpath(src)
    source_of = {}
    for c in commands:
        f = os.path.realpath(os.path.join(c['directory'], c['file']))
        f = os.path.relpath(f, srcreal)
        if f not in tracked:
            continue  # generated (the build tree may sit in the source's)
        obj = os.path.join(c['directory'], c['output'])
        if os.path.exists(obj):
            source_of[obj] = f
    for obj, (d, u) in nm_symbols(sorted(source_of)).items():
        f = source_of[obj]
        for s in d:
            defs[s].add(f)
        uses[f] |= u
    edges = collections.defaultdict(set)
    for f, syms in uses.items():
        for s in syms:
            cands = defs.get(s, set()) - {f}
            if not cands:
                continue
            if len(cands) > 1:
                best = max(common_prefix(f, c) for c in cands)
                cands = [c for c in cands if common_prefix(f, c) == best]
                if len(cands) > 1:
                    continue
            edges[f].add(next(iter(cands)))
    return edges


def read_layers(src):
    """The layer table of docs/architecture.md: [(name, prefixes, uses)]."""
    path = os.path.join(src, 'docs', 'architecture.md')
    with open(path) as fh:
        text = fh.read()
    m = re.search(r'^## The layers\n(.*?)(?=^## |\Z)', text, re.M | re.S)
    if not m:
        raise ValueError('%s: no "## The layers" section' % path)
    layers = []
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 3 or not line.lstrip().startswith('|'):
            continue
        if cells[0] in ('layer', '') or set(cells[0]) <= set('-: '):
            continue
        name = cells[0].strip('`')
        prefixes = [p.strip('`') for p in cells[1].split()]
        uses = [u.strip('`,') for u in cells[2].split()
                if u.strip('`,') not in ('-', '')]
        layers.append((name, prefixes, set(uses)))
    if not layers:
        raise ValueError('%s: the layer table is empty' % path)
    return layers


def layer_of(f, layers):
    best, best_len = None, -1
    for name, prefixes, _ in layers:
        for p in prefixes:
            if (f == p or (p.endswith('/') and f.startswith(p))) \
                    and len(p) > best_len:
                best, best_len = name, len(p)
    return best


def circles(edges):
    """Tarjan's strongly connected components of two or more nodes."""
    index, low, stack, on, found = {}, {}, [], set(), []
    nodes = sorted(set(edges) | {w for v in edges for w in edges[v]})
    counter = [0]

    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def main():
    ap = argparse.ArgumentParser(
        description='The include and call graphs of the tree, checked '
        'against the layers of docs/architecture.md.')
    ap.add_argument('build', help='the build directory (compile_commands.json)')
    ap.add_argument('--source', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..'),
        help='the source tree (default: this script\'s)')
    ap.add_argument('--edges', action='store_true', help='print every edge')
    ap.add_argument('--layers', action='store_true',
                    help='print the layer of every file')
    a = ap.parse_args()
    src = os.path.realpath(a.source)
    try:
        layers = read_layers(src)
        files = tree_files(src)
        inc, problems = include_edges(src, files)
        calls = call_edges(src, a.build, set(files))
    except (OSError, ValueError) as e:
        print('callgraph: could not run: %s' % e, file=sys.stderr)
        return 2
    allowed = {name: uses for name, _, uses in layers}
    if a.layers:
        for f in files:
            print(f, layer_of(f, layers) or '(none)')
    bad = 0
    for p in problems:
        print(p)
        bad += 1
    unplaced = sorted(f for f in files if layer_of(f, layers) is None)
    for f in unplaced:
        print('%s: in no layer of docs/architecture.md' % f)
        bad += 1
    for kind, edges in (('includes', inc), ('calls', calls)):
        for f in sorted(edges):
            for g in sorted(edges[f]):
                lf, lg = layer_of(f, layers), layer_of(g, layers)
                if a.edges:
                    print('%s %s %s' % (f, kind, g))
                if lf is None or lg is None or lf == lg:
                    continue
                if '*' in allowed[lf] or lg in allowed[lf]:
                    continue
                print('forbidden: %s (%s) %s %s (%s)' % (f, lf, kind, g, lg))
                bad += 1
        for c in circles(edges):
            print('circle (%s): %s' % (kind, ' <-> '.join(c)))
            bad += 1
    print('callgraph: %d files, %d include and %d call edges, %d problems'
          % (len(files), sum(len(v) for v in inc.values()),
             sum(len(v) for v in calls.values()), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
