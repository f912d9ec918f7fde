#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The matrix's `suite` carries the build's whole characterisation suite.

The test binaries of meson's suite `kernel` (`meson introspect --tests`)
must be exactly the binaries under matrix/tests/ of the guest image that
`testfs-matrix image FILE suite` writes (a cpio "newc" archive, read
here). A test added to the build but not to the image fails this test.

Usage: matrix_suite_list.py BUILDDIR TESTFS-MATRIX
"""
import json
import os
import subprocess
import sys
import tempfile


def build_suite(builddir):
    out = subprocess.run(['meson', 'introspect', '--tests', builddir],
                         check=True, capture_output=True, text=True).stdout
    return sorted(t['name'] for t in json.loads(out)
                  if any(s.split(':')[-1] == 'kernel' for s in t['suite']))


def cpio_names(path):
    """The names in a (possibly concatenated) cpio newc archive."""
    names = []
    with open(path, 'rb') as f:
        data = f.read()
    off = 0
    while off + 110 <= len(data):
        if data[off:off + 6] != b'070701':
            off += 4  # padding between concatenated archives
            continue
        size = int(data[off + 54:off + 62], 16)
        nlen = int(data[off + 94:off + 102], 16)
        name = data[off + 110:off + 110 + nlen - 1].decode()
        off += (110 + nlen + 3) & ~3
        off += (size + 3) & ~3
        if name != 'TRAILER!!!':
            names.append(name)
    return names


def main():
    builddir, matrix = sys.argv[1], sys.argv[2]
    want = build_suite(builddir)
    if len(want) < 8:
        print(f'FAIL: meson lists only {want} in suite kernel')
        return 1
    if not os.access('/bin/busybox', os.X_OK) and os.environ.get('CI') != 'true':
        print('SKIP: /bin/busybox missing (busybox-static): no guest image')
        return 77
    with tempfile.TemporaryDirectory(prefix='testfs-test.') as d:
        img = os.path.join(d, 'suite.cpio')
        r = subprocess.run([matrix, 'image', img, 'suite'],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            print(f'FAIL: testfs-matrix image: {r.returncode}: {r.stderr}')
            return 1
        got = sorted(n[len('matrix/tests/'):] for n in cpio_names(img)
                     if n.startswith('matrix/tests/') and
                     n != 'matrix/tests/')
    if got != want:
        print('FAIL: the guest image\'s suite differs from the build\'s')
        print('  build (suite kernel):', ' '.join(want))
        print('  image (matrix/tests):', ' '.join(got))
        print('  missing from the image:', sorted(set(want) - set(got)))
        print('  only in the image:', sorted(set(got) - set(want)))
        return 1
    print(f'ok: {len(got)} binaries: {" ".join(got)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
