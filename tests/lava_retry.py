#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""testfs-matrix --lava and a guest whose kernel panicked, without LAVA.

  lava_retry.py MATRIX SRCDIR

A `lavacli` of this test's own, first on PATH, plays the server: one qemu
device, each job running once and then finished with the health and log
the test's plan gives it. The logs are real `lavacli jobs logs --raw`
output of scripts/lava-local.sh's instance (tests/lava/): panic-raw.log, a
debian:6.12 job whose kernel panicked in early boot (its kernel command
line had rdinit=/nonexistent: "Kernel panic - not syncing: VFS: Unable to
mount root fs"), LAVA's health Incomplete ("Connection closed"), and
lavacli-raw.log, a debian:6.12 job that ran the scenario (which failed in
it, status 1) and ended Complete.

Checked: a job whose guest panicked is submitted once more, with a
progress line, and the run is the second job's; a second panic fails the
run with the panic line and both jobs' URLs; never a third job; a job LAVA
ended at its time limit is not submitted again, nor a canceled one; a
second job LAVA rejects fails the run with the panic and LAVA's words.
"""
import json
import os
import sys
import tempfile

from lava_jobs import check, fake_kernel, run, verdict

FAKE = r'''#!PYTHON
import json, os, sys
d = os.environ['TESTFS_FAKE_LAVA']
args = sys.argv[1:]
if args[:1] == ['-i']:
    args = args[2:]
with open(os.path.join(d, 'calls'), 'a') as f:
    f.write(' '.join(args) + '\n')
plan = json.load(open(os.path.join(d, 'plan.json')))
try:
    st = json.load(open(os.path.join(d, 'state.json')))
except OSError:
    st = {'submitted': 0, 'shown': {}}
if args[:2] == ['devices', 'list']:
    print(json.dumps([{'hostname': 'qemu-01', 'type': 'qemu',
                       'health': 'Good'}]))
elif args[:2] == ['jobs', 'submit']:
    n = st['submitted']
    st['submitted'] += 1
    if n >= len(plan):
        print('the plan has no job %d' % (n + 1), file=sys.stderr)
        sys.exit(1)
    if 'reject' in plan[n]:
        # lavacli's own way: its message, exit status 0
        print('Unable to submit %s: %s' % (args[2], plan[n]['reject']))
    else:
        print(n + 1)
elif args[:2] == ['jobs', 'show']:
    job = plan[int(args[2]) - 1]
    seen = st['shown'].get(args[2], 0) + 1
    st['shown'][args[2]] = seen
    done = seen > 1
    print(json.dumps({'id': int(args[2]), 'device': 'qemu-01',
                      'device_type': 'qemu',
                      'state': 'Finished' if done else 'Running',
                      'health': job['health'] if done else 'Unknown',
                      'failure_comment': job.get('comment') if done
                      else None}))
elif args[:2] == ['jobs', 'logs']:
    sys.stdout.write(open(plan[int(args[2]) - 1]['log']).read())
elif args[:2] == ['jobs', 'cancel']:
    pass
else:
    print('unexpected: %s' % ' '.join(args), file=sys.stderr)
    sys.exit(1)
with open(os.path.join(d, 'state.json'), 'w') as f:
    json.dump(st, f)
'''

PANIC = ('Kernel panic - not syncing: VFS: Unable to mount root fs on '
         'unknown-block(0,0)')
CMD = ['scenario', 'vma-boundary', 'throughput=no']
URL = 'http://127.0.0.1:9/scheduler/job/'


def lava_run(matrix, tmp, plan):
    """testfs-matrix --lava against the fake lavacli playing @plan: exit
    status, stdout and stderr, the one run of --json (or None), the
    lavacli calls made."""
    fake = os.path.join(tmp, 'fake')
    os.makedirs(fake, exist_ok=True)
    for f in ('calls', 'state.json'):
        if os.path.exists(os.path.join(fake, f)):
            os.unlink(os.path.join(fake, f))
    with open(os.path.join(fake, 'plan.json'), 'w') as f:
        json.dump(plan, f)
    with open(os.path.join(fake, 'lavacli'), 'w') as f:
        f.write(FAKE.replace('PYTHON', sys.executable, 1))
    os.chmod(os.path.join(fake, 'lavacli'), 0o755)
    env = dict(os.environ, TESTFS_FAKE_LAVA=fake,
               PATH=fake + ':' + os.environ.get('PATH', '/usr/bin:/bin'))
    js = os.path.join(tmp, 'out.json')
    if os.path.exists(js):
        os.unlink(js)
    k = fake_kernel(os.path.join(tmp, 'k'))
    rc, out, err = run([matrix, '--lava', 'http://admin@127.0.0.1:9',
                        '--artifacts', os.path.join(tmp, 'art'),
                        '--kernel', k, '--json', js, *CMD], env=env,
                       timeout=300)
    try:
        with open(js) as f:
            r = json.load(f)['runs'][0]
    except (OSError, ValueError, KeyError, IndexError):
        r = None
    with open(os.path.join(fake, 'calls')) as f:
        calls = f.read().splitlines()
    return rc, out, err, r, calls, k


def submits(calls):
    return sum(c.startswith('jobs submit ') for c in calls)


def main():
    matrix, src = sys.argv[1], sys.argv[2]
    logs = os.path.join(src, 'tests', 'lava')
    panic = {'log': os.path.join(logs, 'panic-raw.log'),
             'health': 'Incomplete'}
    good = {'log': os.path.join(logs, 'lavacli-raw.log'),
            'health': 'Complete'}
    with tempfile.TemporaryDirectory(prefix='testfs-test.') as tmp:
        # A panic, then a job that runs: the run is the second job's.
        rc, out, err, r, calls, k = lava_run(matrix, tmp, [panic, good])
        line = (f'[{k}] the kernel panicked ({PANIC}); submitting the job '
                f'again: {URL}1')
        check(line in out.splitlines(),
              f'the progress line of a panicked job: {out.strip()[-600:]}')
        check(f'[{k}] queued: {URL}2' in out.splitlines(),
              'the second job is queued')
        check(submits(calls) == 2, f'two jobs submitted: {calls}')
        check(rc == 1 and r is not None and r['status'] == 'failed' and
              'scenario exited with status 1' in r['reason'] and
              f'{URL}2' in r['reason'] and
              r['kernel']['release'] == '6.12.118+deb13-amd64',
              f'the run is the second job\'s (its scenario failed in the '
              f'log): {rc} {r and r["reason"][:300]} {err.strip()[:300]}')

        # Two panics: failed with the panic line and both URLs; no third.
        rc, out, err, r, calls, k = lava_run(matrix, tmp, [panic, panic])
        check(submits(calls) == 2, f'a second panic: no third job: {calls}')
        check(rc == 1 and r is not None and r['status'] == 'failed' and
              PANIC in r['reason'] and f'{URL}1' in r['reason'] and
              f'{URL}2' in r['reason'] and
              'Connection closed' in r['reason'],
              f'a second panic: failed, the panic line, both URLs: {rc} '
              f'{r and r["reason"]}')
        check(out.count('submitting the job again') == 1,
              'one progress line for the one job submitted again')

        # A job LAVA ended at its time limit (a panic line in its console
        # all the same) cost that limit: not submitted again.
        late = dict(panic, comment='lava-test-monitor timed out after 600 '
                    'seconds')
        rc, out, err, r, calls, k = lava_run(matrix, tmp, [late])
        check(submits(calls) == 1 and rc == 1 and r is not None and
              'timed out after 600 seconds' in r['reason'] and
              f'{URL}1' in r['reason'],
              f'a job past its time limit is not submitted again: {calls} '
              f'{r and r["reason"]}')

        # A canceled job is not either.
        gone = dict(panic, health='Canceled')
        rc, out, err, r, calls, k = lava_run(matrix, tmp, [gone])
        check(submits(calls) == 1 and rc == 1 and r is not None and
              'Canceled' in r['reason'],
              f'a canceled job is not submitted again: {calls} '
              f'{r and r["reason"]}')

        # The second job rejected: the panic and LAVA's words.
        no = {'reject': 'no device of the tag'}
        rc, out, err, r, calls, k = lava_run(matrix, tmp, [panic, no])
        check(submits(calls) == 2 and rc == 1 and r is not None and
              PANIC in r['reason'] and f'{URL}1' in r['reason'] and
              'no device of the tag' in r['reason'] and
              'no device of the tag' in out,
              f'a second job LAVA rejects: {calls} {r and r["reason"]}')
    return verdict()


if __name__ == '__main__':
    sys.exit(main())
