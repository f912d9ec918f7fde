#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""testfs-matrix and LAVA.

  lava_jobs.py cli MATRIX SRCDIR     lava-job's files and bad input, --lava
                                     bad input, decode of a real LAVA log
  lava_jobs.py schema MATRIX         the job validated by lava-common's
                                     schema (skips without lava-common,
                                     outside CI)
  lava_jobs.py local MATRIX SRCDIR   the `lava` setup: scripts/lava-local.sh
                                     up, the matrix over it with two (or
                                     more) kernels at once against a
                                     local run, down
  lava_jobs.py compare A.json B.json two runs' --json (a --lava one and a
                                     local one) equal but for what differs
                                     between runs (times, clock-dependent
                                     counts: untimed()); exit 1 if not

The kernels of `cli` and `schema` are hand-made bzImage headers (nothing
boots); `local` uses $TESTFS_LAVA_KERNELS (SPECs separated by spaces, default
"debian:6.12 debian:7.3"; the first also runs alone).
"""
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlsplit

FAILS = []


def check(cond, what):
    print(('ok: ' if cond else 'FAIL: ') + what)
    if not cond:
        FAILS.append(what)


def run(argv, **kw):
    kw.setdefault('timeout', 600)
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    return r.returncode, r.stdout, r.stderr


def fake_kernel(d):
    """A file with an x86 boot header (0xAA55, "HdrS"), FUSE built in."""
    os.makedirs(d, exist_ok=True)
    hdr = bytearray(0x400)
    hdr[0x1fe:0x200] = b'\x55\xaa'
    hdr[0x202:0x206] = b'HdrS'
    with open(os.path.join(d, 'bzImage'), 'wb') as f:
        f.write(hdr)
    with open(os.path.join(d, 'config'), 'w') as f:
        f.write('CONFIG_FUSE_FS=y\n')
    return d


def fake_arm64(d, page_kb):
    """An arm64 Image header (magic "ARM\\x64", the page size in its
    flags), FUSE built in."""
    os.makedirs(d, exist_ok=True)
    hdr = bytearray(0x1000)
    hdr[0x38:0x3c] = b'ARM\x64'
    hdr[24] = {4: 1, 16: 2, 64: 3}[page_kb] << 1
    with open(os.path.join(d, 'Image'), 'wb') as f:
        f.write(hdr)
    with open(os.path.join(d, 'config'), 'w') as f:
        f.write('CONFIG_FUSE_FS=y\n')
    return d


def fake_arm64_build(d):
    """What scripts/setup.sh --matrix-arm64 makes, as static aarch64 ELF
    headers (nothing runs them: they go into the guest image)."""
    elf = (b'\x7fELF' + bytes([2, 1, 1, 0]) + bytes(8) +
           struct.pack('<HHIQQQIHHHHHH', 2, 183, 1, 0, 0, 0, 0, 64, 56, 0,
                       64, 0, 0))
    for f in ('src/testfs', 'tools/testfs-touch', 'scenario/testfs-scenario',
              'sysroot/bin/busybox', 'sysroot/bin/fusermount3'):
        os.makedirs(os.path.dirname(os.path.join(d, f)), exist_ok=True)
        with open(os.path.join(d, f), 'wb') as fh:
            fh.write(elf)
        os.chmod(os.path.join(d, f), 0o755)
    os.makedirs(os.path.join(d, 'tests'), exist_ok=True)
    return d


def write_job(matrix, tmp, *extra):
    art = os.path.join(tmp, 'art')
    k = fake_kernel(os.path.join(tmp, 'k'))
    rc, out, err = run([matrix, '--kernel', k, '--artifacts', art, *extra,
                        'lava-job', 'scenario', 'vma-boundary',
                        'throughput=no'])
    jobs = []
    for root, _, files in os.walk(art):
        jobs += [os.path.join(root, f) for f in files if f == 'job.yaml']
    return rc, out, err, art, jobs


def pattern_of(text):
    m = re.search(r"^      pattern: '(.*)'$", text, re.M)
    return m.group(1).replace("''", "'") if m else None


def cli(matrix, src):
    with tempfile.TemporaryDirectory(prefix='testfs-test.') as tmp:
        rc, out, err, art, jobs = write_job(matrix, tmp)
        check(rc == 0 and len(jobs) == 1, f'lava-job writes one job: {rc} {out} {err}')
        if jobs:
            d = os.path.dirname(jobs[0])
            text = open(jobs[0]).read()
            for f in ('bzImage', 'initrd.cpio'):
                check(os.path.getsize(os.path.join(d, f)) > 0, f'{f} written')
            check(f"url: 'file://{os.path.realpath(d)}/bzImage'" in text,
                  'the kernel is fetched from file://DIR by default')
            check('device_type: qemu' in text and 'method: qemu' in text,
                  'device type qemu, boot method qemu')
            check('arch: x86_64' in text, 'context arch x86_64')
            check('console=ttyS0 panic=-1 quiet' in text, 'kernel command line')
            pat = pattern_of(text)
            check(pat is not None, 'a monitors pattern')
            line = ('testfs-result: name=ra_madvise.madvise.sequential '
                    'result=pass measurement=1 units=policy_differences\r\n')
            m = re.search(pat or '^$', line)
            check(m is not None and m.group('test_case_id') ==
                  'ra_madvise.madvise.sequential' and
                  m.group('result') == 'pass' and
                  m.group('measurement') == '1',
                  'the pattern reads a result line of matrix/run.sh')
            runsh = open(os.path.join(src, 'matrix', 'run.sh')).read()
            check('testfs-result: name=' in runsh and
                  'result=%s measurement=%d units=' in runsh,
                  'run.sh prints the lines the pattern reads')
        rc, out, err, _, _ = write_job(matrix, tmp, '--artifacts-url',
                                       'http://lab.example/testfs')
        text = open(os.path.join(tmp, 'art', os.listdir(
            os.path.join(tmp, 'art'))[0], 'job.yaml')).read()
        check(rc == 0 and "url: 'http://lab.example/testfs/" in text,
              '--artifacts-url BASE names the files under BASE')
        k = fake_kernel(os.path.join(tmp, 'k'))
        art = os.path.join(tmp, 'art')
        bad = [
            (['--artifacts', art, '--arch', 'mips', 'lava-job', 'suite'],
             2, '--arch'),
            (['--artifacts', art, '--arch', 'arm64', 'lava-job', 'suite'],
             2, 'x86_64'),
            (['lava-job', 'suite'], 2, '--artifacts'),
            (['--artifacts', art, '--artifacts-url', 'ftp://x', 'lava-job',
              'suite'], 2, '--artifacts-url'),
            (['--kernel', 'host', '--artifacts', art, 'lava-job', 'suite'],
             2, 'host'),
            (['--artifacts', art, 'lava-job'], 2, 'COMMAND'),
            (['--artifacts', art, 'lava-job', 'nosuch'], 2, 'unknown command'),
            (['--lava', 'ftp://x', '--artifacts', art, 'suite'], 2, 'http'),
            (['--artifacts', art, 'suite'], 2, 'go with --lava'),
            (['--lava-timeout', '60', 'suite'], 2, 'go with --lava'),
            (['--artifacts', art, '--lava-timeout', '0', 'lava-job', 'suite'],
             2, '--lava-timeout'),
            (['--lava', 'http://127.0.0.1:9', 'lava-job', 'suite'], 2,
             'lava-job writes'),
            (['--lava', 'http://127.0.0.1:9', '--artifacts', art, 'kernels'],
             2, 'not \'kernels\''),
        ]
        for args, want, words in bad:
            rc, out, err = run([matrix, *(['--kernel', k] if 'host' not in
                                          args else []), *args])
            check(rc == want and words in err,
                  f'{" ".join(args)}: exit {rc} (want {want}), says {words!r}: {err.strip()[:200]}')
        if run(['sh', '-c', 'command -v lavacli'])[0] == 0:
            js = os.path.join(tmp, 'out.json')
            t0 = time.monotonic()
            rc, out, err = run([matrix, '--lava', 'http://127.0.0.1:9',
                                '--artifacts', art, '--kernel', k,
                                '--json', js, 'scenario', 'vma-boundary'])
            check(rc == 1 and 'Unable to connect' in err and
                  not os.path.exists(js) and time.monotonic() - t0 < 120,
                  f'an unreachable LAVA: exit 1, lavacli\'s words, no --json: {rc} {err.strip()[:200]}')
            tok = os.path.join(tmp, 'token')
            with open(tok, 'w') as f:
                f.write('\n')
            rc, out, err = run([matrix, '--lava', 'http://u@127.0.0.1:9',
                                '--lava-token', tok, '--artifacts', art,
                                '--kernel', k, 'suite'])
            check(rc == 1 and 'empty' in err, f'an empty token file: {rc} {err.strip()}')
        else:
            print('(lavacli not installed: --lava against a closed port left out)')
        fixture = os.path.join(src, 'tests', 'lava', 'lava-run.log')
        js = os.path.join(tmp, 'decoded.json')
        rc, out, err = run([matrix, '--json', js, 'decode', fixture])
        # The recorded job ran on a machine at load 30: the guest's
        # scenario failed (its daemon did not answer in time) and LAVA's
        # monitors test recorded that case as fail; decode must say the
        # same, from the whole frames, not "did not finish".
        check(rc == 1, f'decode of a lava-run log: exit {rc} (the scenario failed in it)')
        doc = json.load(open(js))
        r = doc['runs'][0]
        check(r['release'] == '6.1.0-57-amd64' and
              r['kernel']['fuse'] == 'module',
              f'the caps frame is read: {r["release"]}')
        check(r['status'] == 'failed' and
              'scenario exited with status 1' in r['reason'] and
              'did not finish' not in r['reason'],
              f'the guest\'s own outcome: {r["status"]}: {r["reason"][:200]}')
        check(doc['command'][:2] == ['scenario', 'vma-boundary'],
              'the command comes from the log')
        log = open(fixture).read()
        check('"case": "scenario_vma_boundary"' in log and
              '"result": "fail"' in log,
              'LAVA recorded the same case from the testfs-result line')
        plain = os.path.join(tmp, 'plain.log')
        with open(plain, 'w') as f:
            for line in log.splitlines():
                m = re.match(r'^\{"dt": "[^"]*", "lvl": "target", "msg": "(.*)"\}$', line)
                if m:
                    f.write(m.group(1).encode().decode('unicode_escape') + '\n')
        js2 = os.path.join(tmp, 'plain.json')
        run([matrix, '--json', js2, 'decode', plain])
        r2 = json.load(open(js2))['runs'][0]
        check((r2['status'], r2['reason'], r2['release']) ==
              (r['status'], r['reason'], r['release']),
              'the same console as plain text decodes the same')
        # The server's own log of a job (lavacli jobs logs --raw from
        # scripts/lava-local.sh's instance): the guest's last line, its
        # done, is a "feedback" entry there.
        server_log = os.path.join(src, 'tests', 'lava', 'lavacli-raw.log')
        js4 = os.path.join(tmp, 'server.json')
        run([matrix, '--json', js4, 'decode', server_log])
        r4 = json.load(open(js4))['runs'][0]
        check(r4['release'] == '6.12.118+deb13-amd64' and
              r4['status'] == 'failed' and
              'scenario exited with status 1' in r4['reason'],
              f'lavacli jobs logs --raw of a server job: {r4["status"]}: {r4["reason"][:120]}')
        lavacli_log = os.path.join(tmp, 'raw.log')
        with open(lavacli_log, 'w') as f:
            f.write(''.join('- ' + l + '\n' for l in log.splitlines()))
        js3 = os.path.join(tmp, 'raw.json')
        run([matrix, '--json', js3, 'decode', lavacli_log])
        r3 = json.load(open(js3))['runs'][0]
        check((r3['status'], r3['reason']) == (r['status'], r['reason']),
              'lavacli jobs logs --raw (entries after "- ") decodes the same')


def schema(matrix):
    try:
        import yaml
        from lava_common.schemas import validate
    except ImportError as e:
        if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
            os.execv('/usr/bin/python3', ['/usr/bin/python3', *sys.argv])
        if os.environ.get('CI') == 'true':
            check(False, f'lava-common is needed under CI: {e}')
            return
        print(f'SKIP: lava-common is not installed ({e}): apt-get install lava-common')
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix='testfs-test.') as tmp:
        for cmd in (['scenario', 'vma-boundary', 'throughput=no'], ['suite'],
                    ['touch', '0', '16', '--exec']):
            art = os.path.join(tmp, cmd[0])
            k = fake_kernel(os.path.join(tmp, 'k'))
            rc, out, err = run([matrix, '--kernel', k, '--artifacts', art,
                                '--timeout', '1200', 'lava-job', *cmd])
            check(rc == 0, f'lava-job {" ".join(cmd)}: {rc} {err.strip()}')
            for root, _, files in os.walk(art):
                if 'job.yaml' not in files:
                    continue
                data = yaml.safe_load(open(os.path.join(root, 'job.yaml')))
                try:
                    validate(data, strict=True)
                    check(True, f'{" ".join(cmd)}: valid for lava-common')
                except Exception as e:
                    check(False, f'{" ".join(cmd)}: lava-common says {e}')
                check(data['timeouts']['job']['seconds'] == 1800,
                      '--timeout sets the job\'s limit (and 10 minutes)')
        k = fake_kernel(os.path.join(tmp, 'k'))
        art = os.path.join(tmp, 'short')
        rc, out, err = run([matrix, '--kernel', k, '--artifacts', art,
                            '--lava-timeout', '90', 'lava-job', 'suite'])
        for root, _, files in os.walk(art):
            if 'job.yaml' in files:
                data = yaml.safe_load(open(os.path.join(root, 'job.yaml')))
                validate(data, strict=True)
                check(data['timeouts']['job'] == {'seconds': 90},
                      f'--lava-timeout 90: LAVA\'s job limit: {data["timeouts"]}')
        # arm64 guests, 4 KiB and 16 KiB pages: qemu-system-aarch64's
        # context and a device tag per page size.
        env = dict(os.environ,
                   TESTFS_MATRIX_ARM64_BUILD=fake_arm64_build(os.path.join(tmp, 'b64')))
        ks = [fake_arm64(os.path.join(tmp, f'a{kb}'), kb) for kb in (4, 16)]
        art = os.path.join(tmp, 'arm64')
        rc, out, err = run([matrix, '--kernel', ks[0], '--kernel', ks[1],
                            '--artifacts', art, 'lava-job', 'scenario',
                            'vma-boundary'], env=env)
        check(rc == 0, f'lava-job for arm64 kernels: {rc} {err.strip()}')
        tags = []
        for root, _, files in sorted(os.walk(art)):
            if 'job.yaml' not in files:
                continue
            data = yaml.safe_load(open(os.path.join(root, 'job.yaml')))
            try:
                validate(data, strict=True)
                check(True, 'arm64: valid for lava-common')
            except Exception as e:
                check(False, f'arm64: lava-common says {e}')
            ctx = data['context']
            check((ctx['arch'], ctx['machine'], ctx['cpu']) ==
                  ('arm64', 'virt', 'max,pauth-impdef=on'),
                  f'arm64 context: {ctx}')
            deploy = data['actions'][0]['deploy']['images']['kernel']
            check('console=ttyAMA0' in deploy['image_arg'] and
                  deploy['url'].endswith('/Image') and
                  os.path.exists(os.path.join(root, 'Image')),
                  f'arm64 kernel: {deploy}')
            tags += data.get('tags', [])
        check(sorted(tags) == ['page-16k', 'page-4k'],
              f'a device tag per page size: {tags}')
        rc, out, err = run([matrix, '--kernel', ks[0], '--arch', 'x86_64',
                            '--artifacts', art, 'lava-job', 'suite'], env=env)
        check(rc == 2 and 'arm64 kernel' in err,
              f'--arch x86_64 with an arm64 kernel: {rc} {err.strip()}')


def table(out):
    """The table's rows, without the per-run time and the kernel line."""
    rows = []
    started = False
    for line in out.splitlines():
        if line.startswith('  kernel '):
            started = True
            continue
        if started and line.startswith('  ') and not line.startswith('  status'):
            rows.append(re.sub(r'\s+', ' ', line.strip()))
    return rows


TIMED = ('seconds', 'accel', 'reason', 'console_tail')

# What the guest measures against the clock, in a scenario's "fetched":
# how long after its read each page was first touched (page_age's
# histogram), which touches waited on a read still in flight (late,
# late_accesses), and how the touched pages split between faults
# ("accessed") and fault-around mappings ("mapped": fault-around maps only
# the pages whose read has completed, so the split follows the reads'
# completion against the touches). Two local runs of the same command
# differ in exactly these (2026-12-02, debian:6.12: accessed 516 and 517,
# late 332 and 275, the histogram's buckets), as a LAVA run differs from
# a local one; the rest of page_age and usage (fetches, never, fetched,
# wasted) and the sum of accessed and mapped are the same in every run
# and stay compared.
CLOCKED = {'page_age': ('histogram', 'late', 'mapped'),
           'usage': ('late_accesses',)}


def untimed(v, key=None):
    """A --json document without what differs between two runs of the
    same command: times, the accelerator, the reason (its job URL), the
    console tail, and the guest's clock-dependent counts (CLOCKED)."""
    if isinstance(v, dict):
        out = {k: untimed(x, k) for k, x in v.items()
               if k not in TIMED and k not in CLOCKED.get(key, ()) and
               not re.search(r'(^|_)(s|ms|us|ns|time|seconds)$', k)}
        if key == 'usage' and 'accessed' in out and 'mapped' in out:
            out['accessed+mapped'] = out.pop('accessed') + out.pop('mapped')
        return out
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


def differences(a, b, path=''):
    """Where two JSON values differ: a line per path, at most 20."""
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f'{path}/{k}: only in the {"first" if k in a else "second"}')
            else:
                out += differences(a[k], b[k], f'{path}/{k}')
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f'{path}: {len(a)} items, {len(b)} items')
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f'{path}[{i}]')
    elif a != b:
        out.append(f'{path}: {str(a)[:100]!r} != {str(b)[:100]!r}')
    return out[:20]


def failed_run(js, words):
    """The whole --json of a run that failed in LAVA: its one run failed,
    the reason with @words. Removed (whatever it holds) for the next
    check, which may expect none: call it before any `and` that could
    skip it."""
    try:
        with open(js) as f:
            runs = json.load(f)['runs']
    except (OSError, ValueError, KeyError):
        return False
    finally:
        if os.path.exists(js):
            os.unlink(js)
    # A job that never ran took no time (not the time since boot).
    return (len(runs) == 1 and runs[0]['status'] == 'failed' and
            words in runs[0]['reason'] and runs[0]['seconds'] < 3600)


def live_bad_input(matrix, env, tmp, kernel, cmd):
    """Bad input against the running instance: exit 1, LAVA's words, the
    job's URL where there is a job; no --json when no job ran, a whole one
    (the run failed, LAVA's words in its reason) when one did."""
    url, token = env['TESTFS_LAVA_URL'], env['TESTFS_LAVA_TOKEN_FILE']
    js = os.path.join(tmp, 'bad.json')
    lava = [matrix, '--lava', url, '--artifacts', os.path.join(tmp, 'bad'),
            '--json', js]
    bad = os.path.join(tmp, 'badtoken')
    with open(bad, 'w') as f:
        f.write('0123456789abcdef\n')
    rc, out, err = run([*lava, '--lava-token', bad, '--kernel', kernel, *cmd])
    check(rc == 1 and 'Unauthorized' in err and not os.path.exists(js),
          f'a bad token: exit 1, LAVA\'s 401, no --json: {rc} {err.strip()[:300]}')
    # A job LAVA rejects: an arm64 kernel of 64 KiB pages, a tag
    # (page-64k) that no device of the instance has.
    fake = dict(os.environ, TESTFS_MATRIX_ARM64_BUILD=fake_arm64_build(
        os.path.join(tmp, 'b64')))
    k64 = fake_arm64(os.path.join(tmp, 'a64k'), 64)
    rc, out, err = run([*lava, '--lava-token', token, '--kernel', k64, *cmd],
                       env=fake)
    failed = failed_run(js, 'page-64k')
    check(rc == 1 and 'LAVA rejected the job' in out + err and
          'page-64k' in out + err and failed,
          f'a job LAVA rejects: exit 1, its message: {rc} {(out + err).strip()[:400]}')
    # A job canceled in LAVA while queued or running: its failure, its URL.
    p = subprocess.Popen([*lava, '--lava-token', token, '--kernel', kernel,
                          *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    jid = None
    for line in p.stdout:
        m = re.search(r'queued: (\S+/scheduler/job/(\d+))', line)
        if m:
            jid = m.group(2)
            break
    u = urlsplit(url)
    with open(token) as f:
        secret = f.read().strip()
    lavacli = ['lavacli', '--uri',
               f'{u.scheme}://{u.username}:{secret}@{u.hostname}:{u.port}/RPC2']
    if jid:
        run([*lavacli, 'jobs', 'cancel', jid], timeout=180)
    out, err = p.communicate(timeout=1200)
    failed = failed_run(js, f'/scheduler/job/{jid}')
    check(jid and p.returncode == 1 and 'Canceled' in out + err and
          f'/scheduler/job/{jid}' in out + err and failed,
          f'a canceled job: exit 1, Canceled, its URL: {p.returncode} {(out + err).strip()[-400:]}')
    # A job past LAVA's own time limit (--lava-timeout 20): LAVA ends it
    # Incomplete with its "... timed out after N seconds"; exit 1 with
    # that and the job's URL within the follow's margin, and --json,
    # --ktap and --html whole (the failed run in each), never cut short.
    # The job must outlast 20 s on any machine: a debian:6.12 guest can
    # boot and run vma-boundary within 20 s when the machine is quiet
    # (2026-12-02: the job ended Complete and the run exited 0, twice;
    # at load 2-4 the guest was still booting, or in its scenario, at
    # 20 s), so its storage model makes each of the scenario's 514 reads
    # take 200 ms. The touches wait on the reads (readahead runs about
    # a window ahead): fixed:100ms took 26 s on the host, so this is
    # some 50 s of reads however fast the machine.
    kt, ht = os.path.join(tmp, 'bad.ktap'), os.path.join(tmp, 'bad.html')
    t0 = time.monotonic()
    rc, out, err = run([*lava, '--lava-token', token, '--lava-timeout', '20',
                        '--ktap', kt, '--html', ht, '--kernel', kernel, *cmd,
                        'model=fixed:200ms'], timeout=1200)
    took = time.monotonic() - t0
    m = re.search(r'/scheduler/job/(\d+)', out + err)
    whole = False
    try:
        ktap = open(kt).read().splitlines()
        html = open(ht).read().rstrip()
        whole = (ktap[0] == 'KTAP version 1' and '1..1' in ktap and
                 ktap[-1].startswith('not ok 1 ') and
                 any('timed out after' in l for l in ktap) and
                 html.endswith('</html>'))
    except (OSError, IndexError):
        pass
    failed = failed_run(js, 'timed out after')
    check(rc == 1 and 'timed out after' in out + err and m is not None and
          failed and whole and took < 1100,
          f'a job past --lava-timeout: exit 1 in {took:.0f} s, LAVA\'s '
          f'"timed out", its URL, whole --json/--ktap/--html: {rc} '
          f'{(out + err).strip()[-400:]}')
    for f in (kt, ht):
        if os.path.exists(f):
            os.unlink(f)
    # No qemu device that can take jobs: both retired, then Good again.
    devs = ['qemu-01', 'qemu-02']
    for d in devs:
        run([*lavacli, 'devices', 'update', '--health', 'RETIRED', d], timeout=180)
    rc, out, err = run([*lava, '--lava-token', token, '--kernel', kernel, *cmd])
    for d in devs:
        run([*lavacli, 'devices', 'update', '--health', 'GOOD', d], timeout=180)
    check(rc == 1 and 'no qemu device can take jobs' in err and
          all(f'{d} Retired' in err for d in devs) and
          not os.path.exists(js),
          f'no usable qemu device: exit 1, says so (each device\'s health), '
          f'no --json: {rc} {err.strip()[:300]}')


def proc_table():
    """Every process: pid -> (ppid, session, start time, state, name)."""
    t = {}
    for p in os.listdir('/proc'):
        if not p.isdigit():
            continue
        try:
            with open(f'/proc/{p}/stat') as f:
                stat = f.read()
        except OSError:
            continue
        f = stat[stat.rindex(')') + 2:].split()
        name = stat[stat.index('(') + 1:stat.rindex(')')]
        t[int(p)] = (int(f[1]), int(f[3]), f[19], f[0], name)
    return t


def instance_procs(d):
    """The processes of the instance in folder @d: the sessions of its pid
    files (server, scheduler, worker), PostgreSQL's postmaster, and all
    their descendants (lava-run, QEMU): pid -> (start time, name)."""
    t = proc_table()
    roots, mine = set(), set()
    for name in ('server.pid', 'scheduler.pid', 'worker.pid',
                 'pg/postmaster.pid'):
        try:
            with open(os.path.join(d, name)) as f:
                roots.add(int(f.readline()))
        except (OSError, ValueError):
            pass
    mine = {p for p, v in t.items() if v[1] in roots or p in roots}
    more = True
    while more:
        kids = {p for p, v in t.items() if v[0] in mine} - mine
        mine |= kids
        more = bool(kids)
    return {p: (t[p][2], t[p][4]) for p in mine}


def down(script):
    """scripts/lava-local.sh down, and a check that it left nothing: no
    process of the instance, no mount in its folder, no folder."""
    if os.environ.get('TESTFS_LAVA_KEEP') == '1':
        return
    d = os.environ.get('TESTFS_LAVA_DIR', '/tmp/testfs-lava')
    before = instance_procs(d)
    rc, out, err = run(['bash', script, 'down'], timeout=300)
    now = proc_table()
    # (a zombie has ended: only its parent, or init, has not reaped it yet)
    left = sorted(f'{p} {name}' for p, (st, name) in before.items()
                  if p in now and now[p][2] == st and now[p][3] != 'Z')
    with open('/proc/mounts') as f:
        mounts = [l.split()[1] for l in f if l.split()[1].startswith(d + '/')]
    check(rc == 0 and not left and not mounts and not os.path.exists(d),
          f'lava-local.sh down leaves nothing ({len(before)} processes '
          f'before): exit {rc}, left {left}, mounts {mounts}, '
          f'{d} {"still there" if os.path.exists(d) else "gone"} {err.strip()}')


def down_on_signal(script):
    """meson test's time limit (and ^C) sends SIGTERM to the test's
    process group and SIGKILL half a second later: `down` then runs in a
    session of its own, to its end."""
    def handler(signum, frame):
        subprocess.Popen(['bash', script, 'down'], start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
        os._exit(128 + signum)
    if os.environ.get('TESTFS_LAVA_KEEP') != '1':
        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)


def local(matrix, src):
    if os.geteuid() != 0:
        print('SKIP: the local LAVA instance needs root (its worker runs QEMU)')
        sys.exit(77)
    kernels = os.environ.get('TESTFS_LAVA_KERNELS', 'debian:6.12 debian:7.3').split()
    script = os.path.join(src, 'scripts', 'lava-local.sh')
    cmd = ['scenario', 'vma-boundary', 'throughput=no']
    ks = sum((['--kernel', k] for k in kernels), [])
    down_on_signal(script)
    rc, out, err = run(['bash', script, 'up'], timeout=1800)
    print(out, err)
    check(rc == 0, 'scripts/lava-local.sh up')
    if rc:
        # What it started before it failed (PostgreSQL) goes too.
        down(script)
        return
    env = dict(l.split('=', 1) for l in out.splitlines() if l.startswith('TESTFS_LAVA_'))
    try:
        with tempfile.TemporaryDirectory(prefix='testfs-test.') as tmp:
            with open('/proc/loadavg') as f:
                load0 = ' '.join(f.read().split()[:3])
            t0 = time.monotonic()
            rc1, out1, err1 = run([matrix, '--lava', env['TESTFS_LAVA_URL'],
                                   '--lava-token', env['TESTFS_LAVA_TOKEN_FILE'],
                                   '--artifacts', os.path.join(tmp, 'one'),
                                   '--kernel', kernels[0], *cmd], timeout=3000)
            one = time.monotonic() - t0
            t0 = time.monotonic()
            rc2, out2, err2 = run([matrix, '--lava', env['TESTFS_LAVA_URL'],
                                   '--lava-token', env['TESTFS_LAVA_TOKEN_FILE'],
                                   '--artifacts', os.path.join(tmp, 'two'),
                                   '--json', os.path.join(tmp, 'lava.json'),
                                   *ks, *cmd], timeout=3000)
            two = time.monotonic() - t0
            print(out2, err2)
            check(rc1 == 0 and rc2 == 0, f'--lava runs: {rc1} {rc2}: {err1} {err2}')
            check('queued' in out2 and 'running' in out2 and
                  '/scheduler/job/' in out2, 'progress lines with the job URL')
            t0 = time.monotonic()
            rc3, out3, err3 = run([matrix, '--json', os.path.join(tmp, 'local.json'),
                                   *ks, *cmd], timeout=3000)
            here = time.monotonic() - t0
            check(rc3 == 0, f'the local run: {rc3} {err3}')
            check(table(out2) == table(out3),
                  f'LAVA\'s table equals the local one:\n{table(out2)}\n{table(out3)}')
            docs = []
            for name in ('lava.json', 'local.json'):
                try:
                    with open(os.path.join(tmp, name)) as f:
                        docs.append(untimed(json.load(f)))
                except (OSError, ValueError) as e:
                    docs.append(str(e))
            check(docs[0] == docs[1],
                  'LAVA\'s --json equals the local one but for times:\n' +
                  '\n'.join(differences(docs[0], docs[1])))
            with open('/proc/loadavg') as f:
                load = ' '.join(f.read().split()[:3])
            n = {2: 'two', 3: 'three'}.get(len(kernels), str(len(kernels)))
            print(f'one kernel over LAVA: {one:.0f} s; {n} at once: {two:.0f} s '
                  f'({two / one:.2f}x); the same {n} here, one after another: '
                  f'{here:.0f} s; load average {load0} before, {load} now')
            live_bad_input(matrix, env, tmp, kernels[0], cmd)
    finally:
        down(script)


def main():
    mode = sys.argv[1]
    if mode == 'cli':
        cli(sys.argv[2], sys.argv[3])
    elif mode == 'schema':
        schema(sys.argv[2])
    elif mode == 'local':
        local(sys.argv[2], sys.argv[3])
    elif mode == 'compare':
        docs = []
        for name in sys.argv[2:4]:
            with open(name) as f:
                docs.append(untimed(json.load(f)))
        check(docs[0] == docs[1], f'{sys.argv[2]} equals {sys.argv[3]} '
              'but for times:\n' + '\n'.join(differences(*docs)))
    return verdict()


def verdict():
    """The exit status of a test made of check()s."""
    if FAILS:
        print(f'{len(FAILS)} checks failed')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
