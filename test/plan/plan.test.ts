import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeConfigSpec, UnitSpec } from '../../src/api/types.ts';
import { type PlanOptions, plan } from '../../src/plan/plan.ts';
import type { Disruption } from '../../src/plan/types.ts';
import { rendered } from '../support/nodeherd-objects.ts';

const inline = (data: string) => ({ inline: { data } });
const file = (path: string, data: string, extra: Record<string, unknown> = {}) => ({
  path,
  content: inline(data),
  ...extra,
});
const created = (name: string, content: string, extra: Partial<UnitSpec> = {}): UnitSpec => ({
  name,
  content,
  ...extra,
});
const KEY = '-----BEGIN PGP PUBLIC KEY BLOCK-----\nx\n-----END PGP PUBLIC KEY BLOCK-----';

interface Case {
  name: string;
  /** undefined: no last-applied revision. */
  prev: NodeConfigSpec | undefined;
  next: NodeConfigSpec;
  options?: PlanOptions;
  actions: string[];
  disruption: Disruption;
}

function run(c: Pick<Case, 'prev' | 'next' | 'options'>) {
  return plan(
    c.prev === undefined ? undefined : { config: rendered(c.prev) },
    { config: rendered(c.next) },
    c.options,
  );
}

function table(title: string, cases: Case[]): void {
  describe(title, () => {
    for (const c of cases) {
      test(c.name, () => {
        const result = run(c);
        assert.deepEqual(
          result.actions.map((a) => a.id),
          c.actions,
        );
        assert.equal(result.disruption, c.disruption);
      });
    }
  });
}

const app = created('app.service', '[Service]\nExecStart=/usr/bin/app', { filePaths: ['/etc/app.conf'] });
const appConf = file('/etc/app.conf', 'v1');
const kubeletDropIn = (content: string) => ({
  name: 'kubelet.service',
  dropIns: [{ name: '10-nodeherd.conf', content }],
});

table('unchanged things cause nothing', [
  {
    name: 'identical configs',
    prev: { files: [appConf], units: [app], packages: [{ name: 'htop' }] },
    next: { files: [appConf], units: [app], packages: [{ name: 'htop' }] },
    actions: [],
    disruption: 'None',
  },
  {
    name: 'same bytes, plain vs base64',
    prev: { files: [file('/etc/a', 'hi')] },
    next: { files: [{ path: '/etc/a', content: { inline: { data: 'aGk=', encoding: 'base64' } } }] },
    actions: [],
    disruption: 'None',
  },
  {
    // Its hold goes with the pin (issue 35): released, not reinstalled, nothing restarted.
    name: 'an unpinned package stays as installed',
    prev: { packages: [{ name: 'htop', version: '3.0' }] },
    next: { packages: [{ name: 'htop' }] },
    actions: ['release-package:htop'],
    disruption: 'None',
  },
  {
    name: 'a package leaving the config is left installed',
    prev: { packages: [{ name: 'htop' }] },
    next: {},
    actions: [],
    disruption: 'None',
  },
]);

table('first apply (no last-applied): everything is new', [
  {
    name: 'files written, created units written, enabled and started (not restarted)',
    prev: undefined,
    next: { files: [appConf], units: [app] },
    actions: [
      'write-file:/etc/app.conf',
      'write-unit:app.service',
      'daemon-reload',
      'enable-unit:app.service',
      'start-unit:app.service',
    ],
    disruption: 'None',
  },
  {
    name: 'a unit nodeherd did not create gets its drop-in and a restart (it may run without it)',
    prev: undefined,
    next: { units: [kubeletDropIn('a')] },
    actions: [
      'write-dropin:kubelet.service/10-nodeherd.conf',
      'daemon-reload',
      'restart-unit:kubelet.service',
    ],
    disruption: 'Restart',
  },
  {
    name: 'repositories and packages: add, apt-update, install',
    prev: undefined,
    next: {
      repositories: [
        { name: 'k8s', uri: 'https://pkgs.k8s.io/deb/', suites: ['/'], signingKey: { data: KEY } },
      ],
      packages: [
        { name: 'kubelet', version: '1.31.2' },
        { name: 'nano', state: 'absent' },
      ],
    },
    actions: ['add-repository:k8s', 'apt-update', 'remove-package:nano', 'install-package:kubelet'],
    disruption: 'None',
  },
  {
    name: 'a created unit meant to be stopped and disabled is stopped and disabled (its state is unknown)',
    prev: undefined,
    next: { units: [created('old.service', 'x', { enabled: false, state: 'stopped' })] },
    actions: ['write-unit:old.service', 'daemon-reload', 'disable-unit:old.service', 'stop-unit:old.service'],
    disruption: 'Restart',
  },
  {
    name: 'an empty config does nothing',
    prev: undefined,
    next: {},
    actions: [],
    disruption: 'None',
  },
]);

table('a unit restarts when its definition or what it depends on changed', [
  {
    name: 'a file in filePaths changed',
    prev: { files: [appConf], units: [app] },
    next: { files: [file('/etc/app.conf', 'v2')], units: [app] },
    actions: ['write-file:/etc/app.conf', 'restart-unit:app.service'],
    disruption: 'Restart',
  },
  {
    name: 'only the mode of a file in filePaths changed',
    prev: { files: [appConf], units: [app] },
    next: { files: [{ ...appConf, mode: 0o600 }], units: [app] },
    actions: ['write-file:/etc/app.conf', 'restart-unit:app.service'],
    disruption: 'Restart',
  },
  {
    name: 'a file in filePaths was added',
    prev: { units: [app] },
    next: { files: [appConf], units: [app] },
    actions: ['write-file:/etc/app.conf', 'restart-unit:app.service'],
    disruption: 'Restart',
  },
  {
    name: 'a file no unit depends on changed: written only (default None)',
    prev: { files: [file('/etc/motd', 'a')], units: [app] },
    next: { files: [file('/etc/motd', 'b')], units: [app] },
    actions: ['write-file:/etc/motd'],
    disruption: 'None',
  },
  {
    name: 'the unit file changed: written, reloaded, re-enabled, restarted',
    prev: { units: [app] },
    next: { units: [{ ...app, content: '[Service]\nExecStart=/usr/bin/app --v2' }] },
    actions: [
      'write-unit:app.service',
      'daemon-reload',
      'enable-unit:app.service',
      'restart-unit:app.service',
    ],
    disruption: 'Restart',
  },
  {
    name: 'a drop-in changed',
    prev: { units: [kubeletDropIn('a')] },
    next: { units: [kubeletDropIn('b')] },
    actions: [
      'write-dropin:kubelet.service/10-nodeherd.conf',
      'daemon-reload',
      'restart-unit:kubelet.service',
    ],
    disruption: 'Restart',
  },
  {
    name: 'a drop-in was removed',
    prev: {
      units: [
        {
          name: 'kubelet.service',
          dropIns: [
            { name: 'a.conf', content: '' },
            { name: 'b.conf', content: '' },
          ],
        },
      ],
    },
    next: { units: [{ name: 'kubelet.service', dropIns: [{ name: 'a.conf', content: '' }] }] },
    actions: ['remove-dropin:kubelet.service/b.conf', 'daemon-reload', 'restart-unit:kubelet.service'],
    disruption: 'Restart',
  },
  {
    name: 'a package in packages changed version',
    prev: {
      units: [{ name: 'kubelet.service', packages: ['kubelet'] }],
      packages: [{ name: 'kubelet', version: '1.30.1' }],
    },
    next: {
      units: [{ name: 'kubelet.service', packages: ['kubelet'] }],
      packages: [{ name: 'kubelet', version: '1.31.2' }],
    },
    actions: ['apt-update', 'install-package:kubelet', 'restart-unit:kubelet.service'],
    disruption: 'Restart',
  },
  {
    name: 'a package no unit depends on was installed',
    prev: {},
    next: { packages: [{ name: 'htop' }] },
    actions: ['apt-update', 'install-package:htop'],
    disruption: 'None',
  },
  {
    name: 'a package set absent is removed without apt-update',
    prev: { packages: [{ name: 'nano' }] },
    next: { packages: [{ name: 'nano', state: 'absent' }] },
    actions: ['remove-package:nano'],
    disruption: 'None',
  },
  {
    name: 'the template of an instance changed: the instance restarts',
    prev: { units: [created('getty@.service', 'a'), { name: 'getty@tty1.service', state: 'running' }] },
    next: { units: [created('getty@.service', 'b'), { name: 'getty@tty1.service', state: 'running' }] },
    actions: ['write-unit:getty@.service', 'daemon-reload', 'restart-unit:getty@tty1.service'],
    disruption: 'Restart',
  },
  {
    name: 'several triggers: one restart',
    prev: { files: [appConf], units: [{ ...app, dropIns: [{ name: 'x.conf', content: '1' }] }] },
    next: {
      files: [file('/etc/app.conf', 'v2')],
      units: [{ ...app, dropIns: [{ name: 'x.conf', content: '2' }] }],
    },
    actions: [
      'write-file:/etc/app.conf',
      'write-dropin:app.service/x.conf',
      'daemon-reload',
      'restart-unit:app.service',
    ],
    disruption: 'Restart',
  },
  {
    name: 'a unit that is to be stopped is stopped, not restarted',
    prev: { files: [appConf], units: [app] },
    next: { files: [file('/etc/app.conf', 'v2')], units: [{ ...app, state: 'stopped' }] },
    actions: ['write-file:/etc/app.conf', 'stop-unit:app.service'],
    disruption: 'Restart',
  },
  {
    name: 'a unit that was stopped and should run is started (it loads the new definition)',
    prev: { files: [appConf], units: [{ ...app, state: 'stopped' }] },
    next: { files: [file('/etc/app.conf', 'v2')], units: [app] },
    actions: ['write-file:/etc/app.conf', 'start-unit:app.service'],
    disruption: 'None',
  },
  {
    name: 'a unit nodeherd did not create loses its file: the packaged unit takes over after a restart',
    prev: { units: [created('kubelet.service', 'mine')] },
    next: { units: [{ name: 'kubelet.service', dropIns: [{ name: 'x.conf', content: '' }] }] },
    actions: [
      'remove-unit:kubelet.service',
      'write-dropin:kubelet.service/x.conf',
      'daemon-reload',
      'restart-unit:kubelet.service',
    ],
    disruption: 'Restart',
  },
]);

table('enablement and state', [
  {
    name: 'enabled → disabled',
    prev: { units: [app] },
    next: { units: [{ ...app, enabled: false }] },
    actions: ['disable-unit:app.service'],
    disruption: 'None',
  },
  {
    name: 'running → stopped',
    prev: { units: [app] },
    next: { units: [{ ...app, state: 'stopped' }] },
    actions: ['stop-unit:app.service'],
    disruption: 'Restart',
  },
  {
    name: 'a new unit in a later revision is started, not restarted',
    prev: {},
    next: { units: [app] },
    actions: ['write-unit:app.service', 'daemon-reload', 'enable-unit:app.service', 'start-unit:app.service'],
    disruption: 'None',
  },
  {
    name: 'a new unit that should not run is only written (it cannot be running)',
    prev: {},
    next: { units: [created('off.service', 'x', { enabled: false, state: 'stopped' })] },
    actions: ['write-unit:off.service', 'daemon-reload'],
    disruption: 'None',
  },
  {
    name: 'a foreign unit now managed as running is started (a no-op if it runs)',
    prev: {},
    next: { units: [{ name: 'chronyd.service', state: 'running', enabled: true }] },
    actions: ['enable-unit:chronyd.service', 'start-unit:chronyd.service'],
    disruption: 'None',
  },
]);

table('removal', [
  {
    name: 'a unit nodeherd created: stop, disable, remove its files, daemon-reload',
    prev: { units: [{ ...app, dropIns: [{ name: 'x.conf', content: '' }] }] },
    next: {},
    actions: [
      'stop-unit:app.service',
      'disable-unit:app.service',
      'remove-dropin:app.service/x.conf',
      'remove-unit:app.service',
      'daemon-reload',
    ],
    disruption: 'Restart',
  },
  {
    name: 'a stopped, disabled unit nodeherd created: only its file goes',
    prev: { units: [created('off.service', 'x', { enabled: false, state: 'stopped' })] },
    next: {},
    actions: ['remove-unit:off.service', 'daemon-reload'],
    disruption: 'None',
  },
  {
    name: 'a template nodeherd created: its file goes (it never ran and was never enabled by nodeherd)',
    prev: { units: [created('getty@.service', 'x')] },
    next: {},
    actions: ['remove-unit:getty@.service', 'daemon-reload'],
    disruption: 'None',
  },
  {
    name: 'a unit nodeherd did not create: never removed or stopped; drop-ins go, restart if running',
    prev: { units: [kubeletDropIn('a')] },
    next: {},
    actions: [
      'remove-dropin:kubelet.service/10-nodeherd.conf',
      'daemon-reload',
      'restart-unit:kubelet.service',
    ],
    disruption: 'Restart',
  },
  {
    name: 'a unit nodeherd did not create and only enabled: nothing',
    prev: { units: [{ name: 'chronyd.service', enabled: true }] },
    next: {},
    actions: [],
    disruption: 'None',
  },
  {
    name: 'a file: removed after the restarts (a running program may still read it)',
    prev: { files: [appConf, file('/etc/old', 'x')], units: [app] },
    next: { files: [file('/etc/app.conf', 'v2')], units: [app] },
    actions: ['write-file:/etc/app.conf', 'restart-unit:app.service', 'remove-file:/etc/old'],
    disruption: 'Restart',
  },
  {
    name: 'a file a unit depends on: the unit restarts',
    prev: { files: [appConf], units: [app] },
    next: { units: [app] },
    actions: ['restart-unit:app.service', 'remove-file:/etc/app.conf'],
    disruption: 'Restart',
  },
  {
    name: 'a repository: removed, then the index refreshed',
    prev: { repositories: [{ name: 'old', uri: 'http://x', suites: ['./'] }] },
    next: {},
    actions: ['remove-repository:old', 'apt-update'],
    disruption: 'None',
  },
]);

table('repositories', [
  {
    name: 'a changed repository is rewritten and the index refreshed',
    prev: { repositories: [{ name: 'k8s', uri: 'http://x/v1.30', suites: ['./'] }] },
    next: { repositories: [{ name: 'k8s', uri: 'http://x/v1.31', suites: ['./'] }] },
    actions: ['add-repository:k8s', 'apt-update'],
    disruption: 'None',
  },
]);

const kubeletWithConf = {
  files: [file('/etc/kubernetes/kubelet.yaml', 'a')],
  units: [{ name: 'kubelet.service', filePaths: ['/etc/kubernetes/kubelet.yaml'] }],
};
const kubeletConfChanged = (
  policies: NodeConfigSpec['disruptionPolicies'],
  unit: Partial<UnitSpec> = {},
) => ({
  prev: { ...kubeletWithConf, units: [{ ...kubeletWithConf.units[0]!, ...unit }] },
  next: {
    files: [file('/etc/kubernetes/kubelet.yaml', 'b')],
    units: [{ ...kubeletWithConf.units[0]!, ...unit }],
    disruptionPolicies: policies,
  },
});

table('disruption policies override the restart', [
  {
    name: 'file policy Reload: reload the units that list it',
    ...kubeletConfChanged({ files: [{ path: '/etc/kubernetes/kubelet.yaml', action: 'Reload' }] }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'reload-unit:kubelet.service'],
    disruption: 'Reload',
  },
  {
    name: 'file policy None: written only',
    ...kubeletConfChanged({ files: [{ path: '/etc/kubernetes/kubelet.yaml', action: 'None' }] }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml'],
    disruption: 'None',
  },
  {
    name: 'file policy DaemonReload: daemon-reload, no restart',
    ...kubeletConfChanged({ files: [{ path: '/etc/kubernetes/kubelet.yaml', action: 'DaemonReload' }] }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'daemon-reload'],
    disruption: 'None',
  },
  {
    name: 'file policy Drain: the node is drained and the unit restarts',
    ...kubeletConfChanged({ files: [{ path: '/etc/kubernetes/kubelet.yaml', action: 'Drain' }] }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'restart-unit:kubelet.service'],
    disruption: 'Drain',
  },
  {
    name: 'file policy Reboot: one reboot, no restarts',
    ...kubeletConfChanged({ files: [{ path: '/etc/kubernetes/kubelet.yaml', action: 'Reboot' }] }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'reboot'],
    disruption: 'Reboot',
  },
  {
    name: 'a /** prefix policy matches below the directory',
    ...kubeletConfChanged({ files: [{ path: '/etc/kubernetes/**', action: 'Reload' }] }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'reload-unit:kubelet.service'],
    disruption: 'Reload',
  },
  {
    name: 'the most specific policy wins: exact path over prefix',
    ...kubeletConfChanged({
      files: [
        { path: '/etc/**', action: 'Reboot' },
        { path: '/etc/kubernetes/kubelet.yaml', action: 'None' },
        { path: '/etc/kubernetes/**', action: 'Drain' },
      ],
    }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml'],
    disruption: 'None',
  },
  {
    name: 'the longer prefix wins',
    ...kubeletConfChanged({
      files: [
        { path: '/etc/**', action: 'Reboot' },
        { path: '/etc/kubernetes/**', action: 'Reload' },
      ],
    }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'reload-unit:kubelet.service'],
    disruption: 'Reload',
  },
  {
    name: "a unit's own disruption replaces its restart",
    ...kubeletConfChanged({}, { disruption: 'Reload' }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'reload-unit:kubelet.service'],
    disruption: 'Reload',
  },
  {
    name: 'a unit policy replaces the restart',
    ...kubeletConfChanged({ units: [{ name: 'kubelet.service', action: 'Drain' }] }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'restart-unit:kubelet.service'],
    disruption: 'Drain',
  },
  {
    name: "a unit's own disruption beats a unit policy",
    ...kubeletConfChanged({ units: [{ name: 'kubelet.service', action: 'Drain' }] }, { disruption: 'None' }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml'],
    disruption: 'None',
  },
  {
    name: "a file policy beats the unit's own disruption for that file",
    ...kubeletConfChanged(
      { files: [{ path: '/etc/kubernetes/kubelet.yaml', action: 'Restart' }] },
      { disruption: 'Reload' },
    ),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'restart-unit:kubelet.service'],
    disruption: 'Restart',
  },
  {
    name: 'the strongest trigger wins: reload for the file, restart for the drop-in',
    prev: {
      ...kubeletWithConf,
      units: [{ ...kubeletWithConf.units[0]!, dropIns: [{ name: 'a.conf', content: '1' }] }],
    },
    next: {
      files: [file('/etc/kubernetes/kubelet.yaml', 'b')],
      units: [{ ...kubeletWithConf.units[0]!, dropIns: [{ name: 'a.conf', content: '2' }] }],
      disruptionPolicies: { files: [{ path: '/etc/kubernetes/kubelet.yaml', action: 'Reload' }] },
    },
    actions: [
      'write-file:/etc/kubernetes/kubelet.yaml',
      'write-dropin:kubelet.service/a.conf',
      'daemon-reload',
      'restart-unit:kubelet.service',
    ],
    disruption: 'Restart',
  },
  {
    name: 'a container runtime marked Drain: drain when it changes',
    prev: {
      units: [
        { name: 'containerd.service', disruption: 'Drain', dropIns: [{ name: 'a.conf', content: '1' }] },
      ],
    },
    next: {
      units: [
        { name: 'containerd.service', disruption: 'Drain', dropIns: [{ name: 'a.conf', content: '2' }] },
      ],
    },
    actions: ['write-dropin:containerd.service/a.conf', 'daemon-reload', 'restart-unit:containerd.service'],
    disruption: 'Drain',
  },
  {
    name: 'default policy Reboot for a change no unit depends on',
    prev: { files: [file('/etc/sysctl.d/90.conf', 'a')] },
    next: { files: [file('/etc/sysctl.d/90.conf', 'b')], disruptionPolicies: { default: 'Reboot' } },
    actions: ['write-file:/etc/sysctl.d/90.conf', 'reboot'],
    disruption: 'Reboot',
  },
  {
    name: 'the default does not apply to files units depend on',
    ...kubeletConfChanged({ default: 'Reboot' }),
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'restart-unit:kubelet.service'],
    disruption: 'Restart',
  },
  {
    name: 'package policy Reboot (a kernel)',
    prev: { packages: [{ name: 'linux-image-amd64', version: '6.1.0-1' }] },
    next: {
      packages: [{ name: 'linux-image-amd64', version: '6.1.0-2' }],
      disruptionPolicies: { packages: [{ name: 'linux-image-amd64', action: 'Reboot' }] },
    },
    actions: ['apt-update', 'install-package:linux-image-amd64', 'reboot'],
    disruption: 'Reboot',
  },
  {
    name: 'a reboot drops restarts and reloads but keeps starts and stops',
    prev: {
      files: [appConf],
      units: [app, created('b.service', 'x'), created('c.service', 'x', { state: 'stopped' })],
    },
    next: {
      files: [file('/etc/app.conf', 'v2'), file('/boot/x', '1')],
      units: [app, created('b.service', 'x', { state: 'stopped' }), created('c.service', 'x')],
      disruptionPolicies: { files: [{ path: '/boot/**', action: 'Reboot' }] },
    },
    actions: [
      'write-file:/boot/x',
      'write-file:/etc/app.conf',
      'stop-unit:b.service',
      'start-unit:c.service',
      'reboot',
    ],
    disruption: 'Reboot',
  },
  {
    name: 'a unit whose state nodeherd does not manage restarts only if it runs',
    prev: { units: [{ name: 'foo.service', dropIns: [{ name: 'a.conf', content: '1' }] }] },
    next: {
      units: [{ name: 'foo.service', dropIns: [{ name: 'a.conf', content: '2' }], disruption: 'Reload' }],
    },
    actions: ['write-dropin:foo.service/a.conf', 'daemon-reload', 'reload-unit:foo.service'],
    disruption: 'Reload',
  },
  {
    name: 'policies given as options replace the config’s (what-if)',
    ...kubeletConfChanged({}),
    options: {
      policies: {
        files: [{ path: '/etc/kubernetes/kubelet.yaml', action: 'Drain' }],
        units: [],
        packages: [],
      },
    },
    actions: ['write-file:/etc/kubernetes/kubelet.yaml', 'restart-unit:kubelet.service'],
    disruption: 'Drain',
  },
]);

table("the agent's own unit restarts last", [
  {
    name: 'after starts and file removals',
    prev: {
      files: [file('/etc/nodeherd/agent.yaml', '1'), file('/etc/gone', 'x')],
      units: [created('nodeherd-agent.service', 'x', { filePaths: ['/etc/nodeherd/agent.yaml'] }), app],
    },
    next: {
      files: [file('/etc/nodeherd/agent.yaml', '2')],
      units: [
        created('nodeherd-agent.service', 'x', { filePaths: ['/etc/nodeherd/agent.yaml'] }),
        { ...app, content: 'new' },
      ],
    },
    options: { selfUnit: 'nodeherd-agent.service' },
    actions: [
      'write-file:/etc/nodeherd/agent.yaml',
      'write-unit:app.service',
      'daemon-reload',
      'enable-unit:app.service',
      'restart-unit:app.service',
      'remove-file:/etc/gone',
      'restart-unit:nodeherd-agent.service',
    ],
    disruption: 'Restart',
  },
]);

describe('the order of a plan that touches everything', () => {
  const prev: NodeConfigSpec = {
    files: [appConf, file('/etc/old.conf', 'x')],
    units: [app, created('retired.service', 'x'), created('idle.service', 'x')],
    repositories: [{ name: 'old', uri: 'http://old', suites: ['./'] }],
    packages: [{ name: 'nano' }],
  };
  const next: NodeConfigSpec = {
    files: [file('/etc/app.conf', 'v2')],
    units: [
      app,
      created('idle.service', 'x', { state: 'stopped', enabled: false }),
      created('new.service', 'x'),
    ],
    repositories: [{ name: 'new', uri: 'http://new', suites: ['./'] }],
    packages: [{ name: 'nano', state: 'absent' }, { name: 'htop' }],
    disruptionPolicies: { default: 'Reboot' },
  };

  test('retire → repositories → apt-update → packages → files → units → daemon-reload → enablement → stop → start → remove files → reboot', () => {
    const result = plan({ config: rendered(prev) }, { config: rendered(next) });
    assert.deepEqual(
      result.actions.map((a) => a.id),
      [
        'stop-unit:retired.service',
        'disable-unit:retired.service',
        'remove-repository:old',
        'add-repository:new',
        'apt-update',
        'remove-package:nano',
        'install-package:htop',
        'write-file:/etc/app.conf',
        'write-unit:new.service',
        'remove-unit:retired.service',
        'daemon-reload',
        'disable-unit:idle.service',
        'enable-unit:new.service',
        'stop-unit:idle.service',
        'start-unit:new.service',
        'remove-file:/etc/old.conf',
        'reboot',
      ],
    );
    assert.equal(result.disruption, 'Reboot');
  });

  test('action ids are unique', () => {
    const ids = plan(undefined, { config: rendered(next) }).actions.map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('the same input yields the same plan', () => {
    assert.deepEqual(
      plan({ config: rendered(prev) }, { config: rendered(next) }),
      plan({ config: rendered(prev) }, { config: rendered(next) }),
    );
  });
});

describe('what actions carry', () => {
  test('write actions carry what to write; restarts say why', () => {
    const result = run({
      prev: { files: [appConf], units: [app] },
      next: { files: [file('/etc/app.conf', 'v2', { mode: 0o600 })], units: [app] },
    });
    const write = result.actions[0];
    assert.equal(write?.kind, 'write-file');
    assert.equal(write.kind === 'write-file' && write.file.content.inline?.data, 'v2');
    assert.equal(write?.reason, 'content, mode changed');
    assert.deepEqual(result.actions[1], {
      kind: 'restart-unit',
      id: 'restart-unit:app.service',
      name: 'app.service',
      ifRunning: false,
      reason: 'file /etc/app.conf content, mode changed',
    });
  });

  test('restarts of units whose state is unmanaged are conditional (try-restart)', () => {
    const result = run({ prev: { units: [kubeletDropIn('a')] }, next: { units: [kubeletDropIn('b')] } });
    const restart = result.actions.find((a) => a.kind === 'restart-unit');
    assert.equal(restart?.kind === 'restart-unit' && restart.ifRunning, true);
  });

  test('install-package carries the version', () => {
    const result = run({ prev: {}, next: { packages: [{ name: 'kubelet', version: '1.31.2-1.1' }] } });
    assert.deepEqual(result.actions[1], {
      kind: 'install-package',
      id: 'install-package:kubelet',
      name: 'kubelet',
      version: '1.31.2-1.1',
      reason: 'added',
    });
  });

  test('a policy with nothing to act on is noted', () => {
    const result = run({
      prev: { files: [file('/etc/motd', 'a')] },
      next: {
        files: [file('/etc/motd', 'b')],
        disruptionPolicies: { files: [{ path: '/etc/motd', action: 'Reload' }] },
      },
    });
    assert.deepEqual(result.notes, [
      'policy Reload for file /etc/motd: no unit lists it, so nothing is reloaded',
    ]);
  });

  test('a first apply says so', () => {
    assert.equal(run({ prev: undefined, next: {} }).initial, true);
    assert.equal(run({ prev: {}, next: {} }).initial, false);
  });
});

describe('changes', () => {
  test('lists what was added, changed and removed per kind', () => {
    const result = run({
      prev: {
        files: [file('/etc/a', '1'), file('/etc/b', '1')],
        units: [app, created('x.service', 'x')],
        packages: [{ name: 'htop', version: '1' }, { name: 'nano' }],
        repositories: [{ name: 'r1', uri: 'http://a', suites: ['./'] }],
      },
      next: {
        files: [file('/etc/a', '2'), file('/etc/c', '1')],
        units: [{ ...app, content: 'y' }, created('y.service', 'y')],
        packages: [{ name: 'htop', version: '2' }, { name: 'curl' }],
        repositories: [{ name: 'r2', uri: 'http://a', suites: ['./'] }],
      },
    });
    assert.deepEqual(result.changes, {
      files: { added: ['/etc/c'], changed: ['/etc/a'], removed: ['/etc/b'] },
      units: { added: ['y.service'], changed: ['app.service'], removed: ['x.service'] },
      packages: { added: ['curl'], changed: ['htop'], removed: ['nano'] },
      repositories: { added: ['r2'], changed: [], removed: ['r1'] },
    });
  });
});

table('holds: a pinned package is held by its install; the hold goes with the pin', [
  {
    name: 'a pinned package leaving the config is released, and left installed',
    prev: { packages: [{ name: 'htop', version: '3.0' }, { name: 'jq' }] },
    next: {},
    actions: ['release-package:htop'],
    disruption: 'None',
  },
  {
    name: 'a pinned package set absent is removed (the removal releases it), no separate release',
    prev: { packages: [{ name: 'htop', version: '3.0' }] },
    next: { packages: [{ name: 'htop', state: 'absent' }] },
    actions: ['remove-package:htop'],
    disruption: 'None',
  },
  {
    name: 'a release restarts nothing: the package did not change',
    prev: {
      units: [created('a.service', 'x', { packages: ['htop'] })],
      packages: [{ name: 'htop', version: '3.0' }],
    },
    next: { units: [created('a.service', 'x', { packages: ['htop'] })], packages: [{ name: 'htop' }] },
    actions: ['release-package:htop'],
    disruption: 'None',
  },
  {
    name: 'releases come before removals and installs (after the index refresh)',
    prev: { packages: [{ name: 'jq', version: '1' }, { name: 'nano' }] },
    next: { packages: [{ name: 'jq' }, { name: 'nano', state: 'absent' }, { name: 'curl', version: '2' }] },
    actions: ['apt-update', 'release-package:jq', 'remove-package:nano', 'install-package:curl'],
    disruption: 'None',
  },
]);

test('a release is summarised', () => {
  const result = run({
    prev: { packages: [{ name: 'htop', version: '3.0' }] },
    next: { packages: [{ name: 'htop' }] },
  });
  assert.equal(result.summary, '1 package released (htop) — disruption: None');
});

describe('package managers', () => {
  test('a package or repository naming the default manager plans as an unnamed one, and says its manager', () => {
    const result = run({
      prev: { repositories: [{ name: 'old', manager: 'apt', uri: 'http://a', suites: ['./'] }] },
      next: {
        packages: [
          { name: 'htop', manager: 'apt', version: '1' },
          { name: 'nano', state: 'absent' },
        ],
      },
    });
    assert.deepEqual(
      result.actions.map((a) => a.id),
      ['remove-repository:old', 'apt-update', 'remove-package:nano', 'install-package:htop'],
    );
    assert.deepEqual(
      result.actions.map((a) => ('manager' in a ? a.manager : undefined)),
      ['apt', undefined, undefined, 'apt'],
      'the manager is carried only where the config named it, so existing plans are unchanged',
    );
  });
});
