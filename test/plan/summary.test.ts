import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { describeAction, formatPlan } from '../../src/plan/format.ts';
import { plan } from '../../src/plan/plan.ts';
import { rendered } from '../support/nodeherd-objects.ts';

const inline = (data: string) => ({ inline: { data } });

function summaryOf(prev: NodeConfigSpec | undefined, next: NodeConfigSpec): string {
  return plan(prev === undefined ? undefined : { config: rendered(prev) }, { config: rendered(next) })
    .summary;
}

describe('summary', () => {
  const kubelet = { name: 'kubelet.service', filePaths: ['/etc/a', '/etc/b'], packages: ['htop'] };
  const cases: [string, NodeConfigSpec | undefined, NodeConfigSpec, string][] = [
    ['nothing to do', {}, {}, 'no changes — disruption: None'],
    [
      'files, a restart and a package',
      {
        files: [
          { path: '/etc/a', content: inline('1') },
          { path: '/etc/b', content: inline('1') },
        ],
        units: [kubelet],
      },
      {
        files: [
          { path: '/etc/a', content: inline('2') },
          { path: '/etc/b', content: inline('2') },
        ],
        units: [kubelet],
        packages: [{ name: 'htop' }],
      },
      '2 files changed, 1 unit restarted (kubelet.service), 1 package installed (htop) — disruption: Restart',
    ],
    [
      'more than three names are abbreviated',
      {},
      { units: ['a', 'b', 'c', 'd', 'e'].map((n) => ({ name: `${n}.service`, content: 'x' })) },
      '5 units added, 5 units started (a.service, b.service, c.service, +2 more) — disruption: None',
    ],
    [
      'removals, repositories and a reboot',
      {
        files: [{ path: '/etc/x', content: inline('1') }],
        repositories: [{ name: 'r', uri: 'http://a', suites: ['./'] }],
        packages: [{ name: 'nano' }],
      },
      {
        packages: [{ name: 'nano', state: 'absent' }],
        disruptionPolicies: { packages: [{ name: 'nano', action: 'Reboot' }] },
      },
      '1 file removed, 1 package removed (nano), 1 repository removed, reboot — disruption: Reboot',
    ],
  ];
  for (const [name, prev, next, expected] of cases)
    test(name, () => assert.equal(summaryOf(prev, next), expected));
});

describe('formatPlan', () => {
  test('numbers the actions, with targets and reasons, then notes', () => {
    const result = plan(
      {
        config: rendered({
          units: [{ name: 'kubelet.service', dropIns: [{ name: 'a.conf', content: '1' }] }],
        }),
      },
      {
        config: rendered({
          units: [{ name: 'kubelet.service', dropIns: [{ name: 'a.conf', content: '2' }] }],
          packages: [{ name: 'kubelet', version: '1.31.2' }],
        }),
      },
    );
    assert.equal(
      formatPlan(result),
      [
        '1 unit changed, 1 unit restarted (kubelet.service), 1 package installed (kubelet) — disruption: Restart',
        '  1. apt-update — packages to install',
        '  2. install-package kubelet=1.31.2 — added',
        '  3. write-dropin kubelet.service/a.conf — changed',
        '  4. daemon-reload — unit files changed',
        '  5. restart-unit kubelet.service (only if running) — drop-in a.conf changed',
      ].join('\n'),
    );
  });

  test('describeAction of an action without a target is its kind', () => {
    assert.equal(describeAction({ kind: 'reboot', id: 'reboot', reason: 'x' }), 'reboot');
  });
});
