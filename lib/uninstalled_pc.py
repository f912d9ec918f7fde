#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rewrites meson's testfs-uninstalled.pc after configuration.

meson's uninstalled pkg-config file adds the library's own folders (lib/,
in the build and the source tree) to Cflags, and names a libdir that does
not exist in a build tree. A program built against an uninstalled
libtestfs must see what an installed one sees: include/ only, and the
folder that holds the built library. Usage: uninstalled_pc.py PCFILE
LIBDIR (LIBDIR relative to the build root).
"""
import re
import sys

path, libdir = sys.argv[1], sys.argv[2]
with open(path, encoding='utf-8') as f:
    lines = f.read().splitlines()
out = []
for line in lines:
    if line.startswith('libdir='):
        line = 'libdir=${prefix}/' + libdir
    elif line.startswith('Libs:'):
        line = re.sub(r'-L\S+', '-L${libdir}', line)
    elif line.startswith('Cflags:'):
        line = 'Cflags: -I${srcdir}/include'
    out.append(line)
with open(path, 'w', encoding='utf-8') as f:
    f.write('\n'.join(out) + '\n')
