// Parity of the two layers that refuse a bad NodeConfig or NodeConfigPool: the full embedded server
// (the CRD plus nodeherd's validators, with the better messages), and the generated CRDs alone, as a
// real cluster's kube-apiserver judges them. The CRDs are installed a second time under another group,
// where nodeherd's profile does not apply. Every bad object must be refused by both, with a cause at
// the field named; every sample must be accepted by both.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { customResourceDefinitions } from '../../src/api/crds.ts';
import { GROUP, VERSION } from '../../src/api/group.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import { isKubeError } from '../../src/kube/kube-error.ts';
import { eventually } from '../support/eventually.ts';
import { adminKubeClient, type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

const CRD_ONLY_GROUP = 'crdonly.nodeherd.test';

type Obj = Record<string, any>;

const goodConfig = (): Obj => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'NodeConfig',
  metadata: { name: 'parity' },
  spec: {
    files: [
      { path: '/etc/example.conf', content: { inline: { data: 'a = 1\n' } } },
      { path: '/etc/example.bin', content: { inline: { data: 'aGVsbG8=', encoding: 'base64' } } },
    ],
    units: [{ name: 'example.service', content: '[Service]\nExecStart=/bin/true\n', state: 'running' }],
    repositories: [
      { name: 'example', uri: 'https://deb.example.com/debian', suites: ['stable'], components: ['main'] },
    ],
    packages: [{ name: 'curl', version: '7.88.*' }],
  },
});

/** An RPM node's config: a dnf repository with its key, and packages at an RPM version. */
const goodDnfConfig = (): Obj => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'NodeConfig',
  metadata: { name: 'parity-dnf' },
  spec: {
    repositories: [
      {
        name: 'kubernetes',
        manager: 'dnf',
        uri: 'https://pkgs.k8s.io/core:/stable:/v1.33/rpm/',
        signingKey: { data: PGP_ARMOR },
      },
      { name: 'epel', manager: 'dnf', uri: 'https://mirror.example.com/epel/$releasever/$basearch/' },
    ],
    packages: [
      { name: 'kubelet', manager: 'dnf', version: '1.33.2-150500.1.1' },
      { name: 'NetworkManager', manager: 'dnf', version: '1:1.48.*' },
    ],
  },
});

/** goodConfig with its repository and package turned into dnf's. */
function dnf(what: string, field: string, change: (spec: Obj) => void): BadObject {
  return config(what, field, (s) => {
    s.repositories[0] = { name: 'example', manager: 'dnf', uri: 'https://rpm.example.com/el9/' };
    s.packages[0] = { name: 'curl', manager: 'dnf', version: '7.76.1-26.el9' };
    change(s);
  });
}

const goodPool = (): Obj => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'NodeConfigPool',
  metadata: { name: 'parity' },
  spec: {
    nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
    configSelector: { matchLabels: { 'nodeherd.io/pool': 'parity' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
  },
});

interface BadObject {
  /** What is wrong. */
  what: string;
  object: Obj;
  /** The field a cause must name (a cause below it counts too). */
  field: string;
}

function config(what: string, field: string, change: (spec: Obj) => void): BadObject {
  const object = goodConfig();
  change(object.spec);
  return { what, object, field };
}

function pool(what: string, field: string, change: (o: Obj) => void): BadObject {
  const object = goodPool();
  change(object);
  return { what, object, field };
}

const file = (path: string): Obj => ({ path, content: { inline: { data: 'x' } } });
const PGP_ARMOR = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQ==\n-----END PGP PUBLIC KEY BLOCK-----\n';

export const BAD_OBJECTS: BadObject[] = [
  config('.. segment', 'spec.files[2].path', (s) => s.files.push(file('/etc/../etc/shadow'))),
  config('. segment', 'spec.files[2].path', (s) => s.files.push(file('/etc/./shadow'))),
  config('empty segment', 'spec.files[2].path', (s) => s.files.push(file('/etc//shadow'))),
  config('trailing slash', 'spec.files[2].path', (s) => s.files.push(file('/etc/foo/'))),
  config('relative path', 'spec.files[2].path', (s) => s.files.push(file('etc/foo'))),
  config('NUL byte in a path', 'spec.files[2].path', (s) => s.files.push(file('/etc/a\u0000b'))),
  config('newline in a path', 'spec.files[2].path', (s) => s.files.push(file('/etc/a\nb'))),
  config('* in a path', 'spec.files[2].path', (s) => s.files.push(file('/etc/*.conf'))),
  config('under /proc', 'spec.files[2].path', (s) => s.files.push(file('/proc/sys/kernel/panic'))),
  config('under /sys', 'spec.files[2].path', (s) => s.files.push(file('/sys/kernel/mm/ksm/run'))),
  config('/dev itself', 'spec.files[2].path', (s) => s.files.push(file('/dev'))),
  config('under /run', 'spec.files[2].path', (s) => s.files.push(file('/run/foo'))),
  config('the agent state', 'spec.files[2].path', (s) =>
    s.files.push(file('/var/lib/nodeherd/last-applied.json')),
  ),
  config('a unit file', 'spec.files[2].path', (s) => s.files.push(file('/etc/systemd/system/evil.service'))),
  config('a drop-in file', 'spec.files[2].path', (s) =>
    s.files.push(file('/lib/systemd/system/kubelet.service.d/10-x.conf')),
  ),
  config('a repository file', 'spec.files[2].path', (s) =>
    s.files.push(file('/etc/apt/sources.list.d/nodeherd-example.sources')),
  ),
  config('a repository keyring', 'spec.files[2].path', (s) =>
    s.files.push(file('/etc/apt/keyrings/nodeherd-x.gpg')),
  ),
  config('invalid base64', 'spec.files[1].content.inline', (s) => {
    s.files[1].content.inline.data = 'not base64!';
  }),
  config('unpadded base64', 'spec.files[1].content.inline', (s) => {
    s.files[1].content.inline.data = 'aGVsbG8';
  }),
  config('both inline and secretRef', 'spec.files[0].content', (s) => {
    s.files[0].content.secretRef = { namespace: 'nodeherd', name: 's', key: 'k' };
  }),
  config('a secretRef in another namespace', 'spec.files[0].content.secretRef.namespace', (s) => {
    s.files[0].content = { secretRef: { namespace: 'kube-system', name: 's', key: 'k' } };
  }),
  config('secretRef.uid in a NodeConfig', 'spec.files[0].content.secretRef.uid', (s) => {
    s.files[0].content = { secretRef: { namespace: 'nodeherd', name: 's', key: 'k', uid: 'u' } };
  }),
  config('mode above 07777', 'spec.files[0].mode', (s) => {
    s.files[0].mode = 0o10000;
  }),
  config('a bad owner', 'spec.files[0].owner', (s) => {
    s.files[0].owner = 'root; rm -rf /';
  }),
  config('a template unit set running', 'spec.units[1].state', (s) =>
    s.units.push({ name: 'foo@.service', content: '[Service]\n', state: 'running' }),
  ),
  config('a probed stopped unit', 'spec.units[1].healthProbe', (s) =>
    s.units.push({ name: 'bar.service', state: 'stopped', healthProbe: { exec: { command: ['true'] } } }),
  ),
  config('a probe with an empty command', 'spec.units[0].healthProbe.exec.command', (s) => {
    s.units[0].healthProbe = { exec: { command: [] } };
  }),
  config('a probe timeout above 300', 'spec.units[0].healthProbe.timeoutSeconds', (s) => {
    s.units[0].healthProbe = { exec: { command: ['true'] }, timeoutSeconds: 301 };
  }),
  config('a probe URL that is not http', 'spec.units[0].healthProbe.http.url', (s) => {
    s.units[0].healthProbe = { http: { url: 'ftp://localhost/' } };
  }),
  config('a bad unit name', 'spec.units[0].name', (s) => {
    s.units[0].name = 'evil';
  }),
  config('a drop-in not ending in .conf', 'spec.units[0].dropIns[0].name', (s) => {
    s.units[0].dropIns = [{ name: '10-x.txt', content: '' }];
  }),
  config('a unit filePath not normalised', 'spec.units[0].filePaths[0]', (s) => {
    s.units[0].filePaths = ['/etc/../x'];
  }),
  config('a repeated unit filePath', 'spec.units[0].filePaths[1]', (s) => {
    s.units[0].filePaths = ['/etc/x', '/etc/x'];
  }),
  config('a flat repository with components', 'spec.repositories[0].components', (s) => {
    s.repositories[0].suites = ['./'];
  }),
  config('a repository without components', 'spec.repositories[0].components', (s) => {
    s.repositories[0].components = [];
  }),
  config('a repository without suites', 'spec.repositories[0].suites', (s) => {
    s.repositories[0].suites = [];
  }),
  config('a repository URI with a space', 'spec.repositories[0].uri', (s) => {
    s.repositories[0].uri = 'https://deb.example.com/a b';
  }),
  config('a suite with a #', 'spec.repositories[0].suites[0]', (s) => {
    s.repositories[0].suites = ['stable#x'];
  }),
  config('an armored key that is not one', 'spec.repositories[0].signingKey', (s) => {
    s.repositories[0].signingKey = { data: 'hello' };
  }),
  config('a base64 key that is not a keyring', 'spec.repositories[0].signingKey', (s) => {
    s.repositories[0].signingKey = { data: Buffer.from('not a key').toString('base64'), encoding: 'base64' };
  }),
  config('a base64 key given as armored text', 'spec.repositories[0].signingKey', (s) => {
    s.repositories[0].signingKey = { data: PGP_ARMOR, encoding: 'base64' };
  }),
  config('an unknown package manager', 'spec.packages[0].manager', (s) => {
    s.packages[0].manager = 'yum';
  }),
  config('a package to remove with a version', 'spec.packages[0].version', (s) => {
    s.packages[0].state = 'absent';
  }),
  config('a bad package name', 'spec.packages[0].name', (s) => {
    s.packages[0].name = 'Curl Tools';
  }),
  config('an apt repository without suites', 'spec.repositories[0].suites', (s) => {
    delete s.repositories[0].suites;
  }),
  config('an apt repository with gpgcheck (dnf only)', 'spec.repositories[0].gpgcheck', (s) => {
    s.repositories[0].gpgcheck = true;
  }),
  config('an apt package with an RPM name (upper case)', 'spec.packages[0].name', (s) => {
    s.packages[0].name = 'NetworkManager';
  }),
  config('an apt package with an RPM version (^)', 'spec.packages[0].version', (s) => {
    s.packages[0].version = '1.0^git1';
  }),
  dnf('a dnf repository with suites', 'spec.repositories[0].suites', (s) => {
    s.repositories[0].suites = ['stable'];
  }),
  dnf('a dnf repository with components', 'spec.repositories[0].components', (s) => {
    s.repositories[0].components = ['main'];
  }),
  dnf('a dnf repository with a base64 key', 'spec.repositories[0].signingKey', (s) => {
    s.repositories[0].signingKey = { data: PGP_ARMOR, encoding: 'base64' };
  }),
  dnf('a dnf repository with a key and gpgcheck off', 'spec.repositories[0].signingKey', (s) => {
    s.repositories[0].signingKey = { data: PGP_ARMOR };
    s.repositories[0].gpgcheck = false;
  }),
  dnf('a dnf baseurl that starts a new .repo line', 'spec.repositories[0].uri', (s) => {
    s.repositories[0].uri = 'https://rpm.example.com/\ngpgcheck=0';
  }),
  dnf('a dnf package with a Debian :arch name', 'spec.packages[0].name', (s) => {
    s.packages[0].name = 'curl:amd64';
  }),
  dnf('a dnf package name that is an option', 'spec.packages[0].name', (s) => {
    s.packages[0].name = '-y';
  }),
  dnf('a dnf version with two releases', 'spec.packages[0].version', (s) => {
    s.packages[0].version = '7.76.1-26-el9';
  }),
  config('a bad policy path', 'spec.disruptionPolicies.files[0].path', (s) => {
    s.disruptionPolicies = { files: [{ path: '/etc/*/x', action: 'Restart' }] };
  }),
  config('a policy without an action', 'spec.disruptionPolicies.units[0].action', (s) => {
    s.disruptionPolicies = { units: [{ name: 'x.service' }] };
  }),
  config('a policy default that is not allowed', 'spec.disruptionPolicies.default', (s) => {
    s.disruptionPolicies = { default: 'Restart' };
  }),
  pool(
    'a comparison gate without the Prometheus server to ask',
    'spec.updateStrategy.rollingUpdate.healthGate.prometheus',
    (o) => {
      o.spec.updateStrategy.rollingUpdate.healthGate = {
        compare: [{ name: 'errors', query: 'rate(http_errors_total{$NODES}[5m])', margin: 10 }],
      };
    },
  ),
  pool('pre-staging under Serial', 'spec.prestage', (o) => {
    o.spec.updateStrategy = { type: 'Serial' };
    o.spec.prestage = { maxConcurrent: 2 };
  }),
  pool('a reboot sentinel command found through PATH', 'spec.reboots.osRequested.sentinelCommand', (o) => {
    o.spec.reboots = { osRequested: { sentinelCommand: ['needs-restarting', '-r'] } };
  }),
  pool('a reboot sentinel argument with a NUL byte', 'spec.reboots.osRequested.sentinelCommand[1]', (o) => {
    o.spec.reboots = { osRequested: { sentinelCommand: ['/usr/bin/needs-restarting', '-r\u0000'] } };
  }),
  pool('a reboot sentinel file that is not normalised', 'spec.reboots.osRequested.sentinelFile', (o) => {
    o.spec.reboots = { osRequested: { sentinelFile: '/var/run/../tmp/x' } };
  }),
  pool('a reboot policy that does not exist', 'spec.reboots.osRequested.policy', (o) => {
    o.spec.reboots = { osRequested: { policy: 'Sometimes' } };
  }),
  pool('a pool name that is not a label', 'metadata.name', (o) => {
    o.metadata.name = 'a.b';
  }),
  pool('a selector value that is not a label value', 'spec.nodeSelector.matchLabels', (o) => {
    o.spec.nodeSelector.matchLabels = { role: 'not ok' };
  }),
  pool('In without values', 'spec.configSelector.matchExpressions[0].values', (o) => {
    o.spec.configSelector = { matchExpressions: [{ key: 'a', operator: 'In' }] };
  }),
  pool('Exists with values', 'spec.configSelector.matchExpressions[0].values', (o) => {
    o.spec.configSelector = { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] };
  }),
  pool('maxUnavailable 0', 'spec.updateStrategy.rollingUpdate.maxUnavailable', (o) => {
    o.spec.updateStrategy.rollingUpdate.maxUnavailable = 0;
  }),
  pool('maxUnavailable 0%', 'spec.updateStrategy.rollingUpdate.maxUnavailable', (o) => {
    o.spec.updateStrategy.rollingUpdate.maxUnavailable = '0%';
  }),
  pool('maxUnavailable 150%', 'spec.updateStrategy.rollingUpdate.maxUnavailable', (o) => {
    o.spec.updateStrategy.rollingUpdate.maxUnavailable = '150%';
  }),
  pool('a deadline not above the soak', 'spec.updateStrategy.rollingUpdate.progressDeadlineSeconds', (o) => {
    Object.assign(o.spec.updateStrategy.rollingUpdate, { minReadySeconds: 60, progressDeadlineSeconds: 60 });
  }),
  pool('Skip without a timeout', 'spec.drain.timeoutSeconds', (o) => {
    o.spec.drain = { onTimeout: 'Skip' };
  }),
  pool('Force with a timeout past the progress deadline', 'spec.drain.timeoutSeconds', (o) => {
    o.spec.updateStrategy.rollingUpdate.progressDeadlineSeconds = 60;
    o.spec.drain = { onTimeout: 'Force', timeoutSeconds: 60 };
  }),
  pool('Skip with a timeout past the default progress deadline', 'spec.drain.timeoutSeconds', (o) => {
    o.spec.drain = { onTimeout: 'Skip', timeoutSeconds: 600 };
  }),
  pool('maxSkipped without Skip', 'spec.drain.maxSkipped', (o) => {
    o.spec.drain = { onTimeout: 'Force', timeoutSeconds: 5, maxSkipped: 2 };
  }),
  pool('maxSkipped 0', 'spec.drain.maxSkipped', (o) => {
    o.spec.drain = { onTimeout: 'Skip', timeoutSeconds: 5, maxSkipped: 0 };
  }),
  pool('forceDeleteBudgetedPods with Skip', 'spec.drain.forceDeleteBudgetedPods', (o) => {
    o.spec.drain = { onTimeout: 'Skip', timeoutSeconds: 5, forceDeleteBudgetedPods: true };
  }),
  pool('an order by label without the label', 'spec.rolloutOrder.label', (o) => {
    o.spec.rolloutOrder = { by: 'Label' };
  }),
  pool('a label with an order by zone', 'spec.rolloutOrder.label', (o) => {
    o.spec.rolloutOrder = { by: 'Zone', label: 'rank' };
  }),
  pool('an order that does not exist', 'spec.rolloutOrder.by', (o) => {
    o.spec.rolloutOrder = { by: 'Random' };
  }),
  pool('the next batch tainted under Serial', 'spec.rolloutOrder.preferNoScheduleNext', (o) => {
    o.spec.updateStrategy = { type: 'Serial' };
    o.spec.rolloutOrder = { preferNoScheduleNext: true };
  }),
  pool('serial settings on RollingUpdate', 'spec.updateStrategy.serial', (o) => {
    o.spec.updateStrategy.serial = { slots: 2 };
  }),
  pool('Spread without spread', 'spec.updateStrategy.spread', (o) => {
    o.spec.updateStrategy = { type: 'Spread' };
  }),
  pool('a metric gate on Serial', 'spec.updateStrategy.rollingUpdate', (o) => {
    o.spec.updateStrategy = {
      type: 'Serial',
      rollingUpdate: {
        healthGate: {
          prometheus: { url: 'http://p:9090' },
          metrics: [{ name: 'a', query: 'up', operator: 'NoSeries' }],
        },
      },
    };
  }),
  pool('metrics without prometheus', 'spec.updateStrategy.rollingUpdate.healthGate.prometheus', (o) => {
    o.spec.updateStrategy.rollingUpdate.healthGate = {
      metrics: [{ name: 'a', query: 'up', operator: 'NoSeries' }],
    };
  }),
  pool('prometheus without metrics', 'spec.updateStrategy.rollingUpdate.healthGate.metrics', (o) => {
    o.spec.updateStrategy.rollingUpdate.healthGate = { prometheus: { url: 'http://p:9090' } };
  }),
  pool(
    'a threshold with NoSeries',
    'spec.updateStrategy.rollingUpdate.healthGate.metrics[0].threshold',
    (o) => {
      o.spec.updateStrategy.rollingUpdate.healthGate = {
        prometheus: { url: 'http://p:9090' },
        metrics: [{ name: 'a', query: 'up', operator: 'NoSeries', threshold: 1 }],
      };
    },
  ),
  pool('no threshold with <', 'spec.updateStrategy.rollingUpdate.healthGate.metrics[0].threshold', (o) => {
    o.spec.updateStrategy.rollingUpdate.healthGate = {
      prometheus: { url: 'http://p:9090' },
      metrics: [{ name: 'a', query: 'up', operator: '<' }],
    };
  }),
  pool('a blank query', 'spec.updateStrategy.rollingUpdate.healthGate.metrics[0].query', (o) => {
    o.spec.updateStrategy.rollingUpdate.healthGate = {
      prometheus: { url: 'http://p:9090' },
      metrics: [{ name: 'a', query: '   ', operator: 'NoSeries' }],
    };
  }),
  pool(
    'an alertname that is not RE2',
    'spec.updateStrategy.rollingUpdate.healthGate.alerts[0].alertname',
    (o) => {
      o.spec.updateStrategy.rollingUpdate.healthGate = {
        prometheus: { url: 'http://p:9090' },
        alerts: [{ alertname: 'Node(' }],
      };
    },
  ),
  pool(
    'a Prometheus URL with credentials',
    'spec.updateStrategy.rollingUpdate.healthGate.prometheus.url',
    (o) => {
      o.spec.updateStrategy.rollingUpdate.healthGate = {
        prometheus: { url: 'http://user:secret@p:9090' },
        alerts: [{ alertname: 'X' }],
      };
    },
  ),
  pool(
    'a Prometheus URL with a query',
    'spec.updateStrategy.rollingUpdate.healthGate.prometheus.url',
    (o) => {
      o.spec.updateStrategy.rollingUpdate.healthGate = {
        prometheus: { url: 'http://p:9090/?x=1' },
        alerts: [{ alertname: 'X' }],
      };
    },
  ),
  pool(
    'a schedule that is not cron',
    'spec.updateStrategy.rollingUpdate.maintenanceWindows[0].schedule',
    (o) => {
      o.spec.updateStrategy.rollingUpdate.maintenanceWindows = [{ schedule: 'every night', duration: '4h' }];
    },
  ),
  pool('a minute out of range', 'spec.updateStrategy.rollingUpdate.maintenanceWindows[0].schedule', (o) => {
    o.spec.updateStrategy.rollingUpdate.maintenanceWindows = [{ schedule: '61 * * * *', duration: '4h' }];
  }),
  pool('a step of 0', 'spec.updateStrategy.rollingUpdate.maintenanceWindows[0].schedule', (o) => {
    o.spec.updateStrategy.rollingUpdate.maintenanceWindows = [{ schedule: '0 0 * * 1/0', duration: '4h' }];
  }),
  pool(
    'a selector requirement key that is not a label key',
    'spec.configSelector.matchExpressions[0].key',
    (o) => {
      o.spec.configSelector = { matchExpressions: [{ key: 'bad key!', operator: 'Exists' }] };
    },
  ),
  pool('a label key prefix over 253 characters', 'spec.configSelector.matchExpressions[0].key', (o) => {
    o.spec.configSelector = { matchExpressions: [{ key: `${'a'.repeat(254)}/x`, operator: 'Exists' }] };
  }),
  pool('a window under a minute', 'spec.updateStrategy.rollingUpdate.maintenanceWindows[0].duration', (o) => {
    o.spec.updateStrategy.rollingUpdate.maintenanceWindows = [{ schedule: '@daily', duration: '30s' }];
  }),
  pool(
    'a duration that is not one',
    'spec.updateStrategy.rollingUpdate.maintenanceWindows[0].duration',
    (o) => {
      o.spec.updateStrategy.rollingUpdate.maintenanceWindows = [
        { schedule: '@daily', duration: 'four hours' },
      ];
    },
  ),
  pool('an unknown time zone', 'spec.updateStrategy.rollingUpdate.maintenanceWindows[0].timeZone', (o) => {
    o.spec.updateStrategy.rollingUpdate.maintenanceWindows = [
      { schedule: '@daily', duration: '4h', timeZone: 'Mars/Olympus_Mons' },
    ];
  }),
  pool(
    'a fixed offset time zone',
    'spec.updateStrategy.rollingUpdate.maintenanceWindows[0].timeZone',
    (o) => {
      o.spec.updateStrategy.rollingUpdate.maintenanceWindows = [
        { schedule: '@daily', duration: '4h', timeZone: '+01:00' },
      ];
    },
  ),
  pool('a wave after itself', 'spec.updateStrategy.wave.after', (o) => {
    o.spec.updateStrategy.wave = { after: ['parity'] };
  }),
  pool('a wave after a bad name', 'spec.updateStrategy.wave.after[0]', (o) => {
    o.spec.updateStrategy.wave = { after: ['Not_A_Pool'] };
  }),
  pool('a rollback to revision 0', 'spec.rollbackTo.revision', (o) => {
    o.spec.rollbackTo = { revision: 0 };
  }),
  pool('an unknown drift policy', 'spec.drift.policy', (o) => {
    o.spec.drift = { policy: 'Ignore' };
  }),
];

let local: LocalApiServer;
let client: KubeClient;

function path(object: Obj, group: string): string {
  const plural = object.kind === 'NodeConfig' ? 'nodeconfigs' : 'nodeconfigpools';
  return `/apis/${group}/${VERSION}/${plural}`;
}

/** The causes' fields when the server refuses the object (dry run), or undefined when it accepts it. */
async function refusal(object: Obj, group: string): Promise<string[] | undefined> {
  const body = { ...structuredClone(object), apiVersion: `${group}/${VERSION}` };
  try {
    await client.create(path(object, group), body, { dryRun: 'All' });
    return undefined;
  } catch (err) {
    if (!isKubeError(err, 422)) throw err;
    const causes = typeof err.body === 'object' ? (err.body.details?.causes ?? []) : [];
    return causes.map((c) => c.field ?? '');
  }
}

function names(fields: string[], field: string): boolean {
  return fields.some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`));
}

before(async () => {
  local = await startLocalApiServer();
  client = adminKubeClient(local);
  for (const crd of customResourceDefinitions() as Obj[]) {
    const copy = structuredClone(crd);
    copy.metadata.name = `${copy.spec.names.plural}.${CRD_ONLY_GROUP}`;
    copy.spec.group = CRD_ONLY_GROUP;
    delete copy.spec.names.categories;
    delete copy.spec.names.shortNames;
    await client.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', copy);
  }
  await eventually('the CRD-only group is served', async () => {
    await client.list(`/apis/${CRD_ONLY_GROUP}/${VERSION}/nodeconfigpools`);
    await client.list(`/apis/${CRD_ONLY_GROUP}/${VERSION}/nodeconfigs`);
    return true;
  });
});

after(async () => {
  client?.close();
  await local?.stop();
});

/** A pool whose only Prometheus gate compares updated nodes with the rest. */
const comparingPool = (): Obj => {
  const pool = goodPool();
  pool.spec.updateStrategy.rollingUpdate.healthGate = {
    prometheus: { url: 'http://prometheus.monitoring:9090' },
    compare: [{ name: 'errors', query: 'rate(http_errors_total{$NODES}[5m])', margin: 10 }],
  };
  return pool;
};

const skippingPool = (): Obj => {
  const pool = goodPool();
  pool.metadata.name = 'parity-skip';
  pool.spec.drain = { onTimeout: 'Skip', timeoutSeconds: 300, maxSkipped: 2 };
  pool.spec.rolloutOrder = { by: 'Label', label: 'example.com/rank', preferNoScheduleNext: true };
  return pool;
};

test('the good objects of the corpus are accepted by both the full server and the CRDs alone', async () => {
  for (const object of [goodConfig(), goodDnfConfig(), goodPool(), comparingPool(), skippingPool()]) {
    assert.equal(await refusal(object, GROUP), undefined, `${object.kind} refused by nodeherd`);
    assert.equal(await refusal(object, CRD_ONLY_GROUP), undefined, `${object.kind} refused by the CRD`);
  }
});

test('the samples (deploy/samples, examples/) are accepted by both', async () => {
  const files = [
    'deploy/samples/nodeconfig.yaml',
    'deploy/samples/nodeconfigpool.yaml',
    'examples/break-it/nodeconfig-bad-max-pods.yaml',
  ];
  for (const name of files) {
    for (const doc of parseAllDocuments(readFileSync(name, 'utf8'))) {
      const object = doc.toJS() as Obj;
      assert.equal(await refusal(object, GROUP), undefined, `${name} refused by nodeherd`);
      assert.deepEqual(await refusal(object, CRD_ONLY_GROUP), undefined, `${name} refused by the CRD`);
    }
  }
});

test('kubectl apply against the CRDs alone shows the rule’s message at the field', async () => {
  const object: Obj = { ...goodConfig(), apiVersion: `${CRD_ONLY_GROUP}/${VERSION}` };
  object.spec.files.push(file('/proc/sys/kernel/panic'));
  const result = await local.kubectl(['apply', '-f', '-'], { input: JSON.stringify(object) });
  assert.equal(result.code, 1, result.stdout);
  assert.match(result.stderr, /spec\.files\[2\]\.path: Forbidden: nodeherd does not write under \/proc/);
  const stored = await local.kubectl(['get', `nodeconfigs.${CRD_ONLY_GROUP}`, '-o', 'name']);
  assert.equal(stored.stdout.trim(), '', 'nothing stored');
});

test('every bad object is refused by the full server and by the CRDs alone, at its field', async () => {
  const failures: string[] = [];
  for (const bad of BAD_OBJECTS) {
    for (const [layer, group] of [
      ['nodeherd', GROUP],
      ['the CRD alone', CRD_ONLY_GROUP],
    ] as const) {
      const fields = await refusal(bad.object, group);
      if (fields === undefined) failures.push(`${bad.what}: accepted by ${layer}`);
      else if (!names(fields, bad.field))
        failures.push(`${bad.what}: ${layer} refused it at ${JSON.stringify(fields)}, not at ${bad.field}`);
    }
  }
  assert.deepEqual(failures, []);
});
