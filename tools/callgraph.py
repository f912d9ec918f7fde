#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The file-level call graph of a built tree, and its circles.

Usage: tools/callgraph.py BUILDDIR DIR... (e.g. build lib scenario)

For each target under BUILDDIR/DIR, nm(1) lists what each object file
defines and what it calls; file A -> file B when A calls a global symbol
B defines (in the same target). A circle is a strongly connected set of
two or more files: none of them can be understood, changed or tested
without the others. Prints the edges, then the circles ("none" if none).
"""
import collections
import glob
import os
import re
import subprocess
import sys


def objects(build, dirs):
    for d in dirs:
        for o in sorted(glob.glob(os.path.join(build, d, '**', '*.o'),
                                  recursive=True)):
            m = re.search(r'([^/]+)\.p/(.*)\.o$', o)
            if m:
                # meson names ../dir/f.c's object .._dir_f.c.o
                yield m.group(1), re.sub(r'^(\.\._)+', '', m.group(2)), o


def main():
    build, dirs = sys.argv[1], sys.argv[2:]
    defs = collections.defaultdict(dict)
    uses = {}
    for target, src, obj in objects(build, dirs):
        name = target + ':' + src
        out = subprocess.run(['nm', obj], capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'TDBR':
                defs[target][f[2]] = name
            elif len(f) == 2 and f[0] == 'U':
                uses.setdefault(name, set()).add(f[1])
    edges = collections.defaultdict(set)
    for name, syms in uses.items():
        target = name.split(':')[0]
        for s in syms:
            d = defs[target].get(s)
            if d and d != name:
                edges[name].add(d)
    for a in sorted(edges):
        print(a, '->', ', '.join(sorted(edges[a])))
    # Tarjan's strongly connected components.
    index, low, stack, on, circles = {}, {}, [], set(), []
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    print('circles:', 'none' if not circles else '')
    for c in circles:
        print('  ' + ' <-> '.join(c))
    return 1 if circles else 0


if __name__ == '__main__':
    sys.exit(main())
