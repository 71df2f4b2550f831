import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateNodeConfigPool, validators } from '../../src/api/validation.ts';

function pool(spec: unknown, name = 'workers'): Record<string, unknown> {
  return { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfigPool', metadata: { name }, spec };
}

const base = { nodeSelector: {}, configSelector: { matchLabels: { 'nodeherd.io/pool': 'workers' } } };

function causesOf(obj: unknown): [string, string][] {
  return validateNodeConfigPool(obj).map((c) => [c.field, c.type]);
}

describe('validateNodeConfigPool accepts', () => {
  const valid: [string, unknown][] = [
    ['the minimal pool', base],
    ['webhooks by name', { ...base, notifications: { webhooks: ['ops', 'on-call.slack'] } }],
    ['a drain that skips', { ...base, drain: { timeoutSeconds: 120, onTimeout: 'Skip', maxSkipped: 3 } }],
    [
      'an order by label with the next batch tainted',
      { ...base, rolloutOrder: { by: 'Label', label: 'example.com/rank', preferNoScheduleNext: true } },
    ],
    ['fewest pods first', { ...base, rolloutOrder: { by: 'FewestPods' } }],
    [
      'a full drain',
      {
        ...base,
        drain: {
          timeoutSeconds: 300,
          gracePeriodSeconds: 30,
          skipPodSelector: { matchLabels: { 'nodeherd.io/drain': 'skip' } },
          deleteEmptyDirData: false,
          onTimeout: 'Force',
          forceDeleteBudgetedPods: true,
        },
      },
    ],
    [
      'a full rolling update',
      {
        ...base,
        nodeSelector: {
          matchLabels: { 'node-role.kubernetes.io/worker': '' },
          matchExpressions: [
            { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b'] },
            { key: 'gpu', operator: 'DoesNotExist' },
          ],
        },
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: {
            maxUnavailable: '25%',
            maxUnavailablePerZone: 1,
            canary: { nodes: 1 },
            minReadySeconds: 60,
            progressDeadlineSeconds: 900,
            failurePolicy: { action: 'Rollback', maxFailures: 2 },
            healthGate: { podSelector: { matchLabels: { app: 'critical' } } },
            maintenanceWindows: [
              { schedule: '0 2 * * 1-5', duration: '4h', timeZone: 'Europe/Berlin' },
              { schedule: '@weekly', duration: '1h30m' },
            ],
          },
        },
        revisionHistoryLimit: 5,
        paused: true,
        rollbackTo: { revision: 3 },
      },
    ],
    ['a serial strategy', { ...base, updateStrategy: { type: 'Serial', serial: { slots: 2 } } }],
    ['a spread strategy', { ...base, updateStrategy: { type: 'Spread', spread: { windowSeconds: 600 } } }],
    [
      'a spread strategy with a budget and a canary',
      {
        ...base,
        updateStrategy: {
          type: 'Spread',
          spread: { windowSeconds: 600, maxUnavailable: '10%' },
          rollingUpdate: { canary: { nodes: 1 } },
        },
      },
    ],
    [
      'an OnDelete strategy',
      { ...base, updateStrategy: { type: 'OnDelete', onDelete: { outdatedTaint: 'PreferNoSchedule' } } },
    ],
    ['an OTA strategy', { ...base, updateStrategy: { type: 'OTA' } }],
    ['drift reported only', { ...base, drift: { policy: 'Report' } }],
    ['drift repaired (the default, spelled out)', { ...base, drift: { policy: 'Repair' } }],
    ['OS-requested reboots with the defaults', { ...base, reboots: { osRequested: {} } }],
    ['pre-staging with the default bound', { ...base, prestage: {} }],
    ['pre-staging ten nodes at a time', { ...base, prestage: { maxConcurrent: 10 } }],
    ['pre-staging with a 2 s answer timeout', { ...base, prestage: { timeoutSeconds: 2 } }],
    [
      'OS-requested reboots by an RPM sentinel command',
      {
        ...base,
        reboots: {
          osRequested: {
            policy: 'Reboot',
            sentinelFile: '/run/reboot-needed',
            sentinelCommand: ['/usr/bin/needs-restarting', '-r'],
            timeoutSeconds: 60,
          },
        },
      },
    ],
    [
      'Serial with a canary (rollingUpdate.canary, as Spread)',
      {
        ...base,
        updateStrategy: { type: 'Serial', serial: { slots: 10 }, rollingUpdate: { canary: { nodes: '1%' } } },
      },
    ],
    [
      'a wave after two pools',
      { ...base, updateStrategy: { type: 'Serial', wave: { after: ['canary', 'eu-1'], soakSeconds: 600 } } },
    ],
  ];
  for (const [name, spec] of valid) test(name, () => assert.deepEqual(causesOf(pool(spec)), []));
});

describe('validateNodeConfigPool refuses, with exact field paths', () => {
  const ru = (rollingUpdate: unknown) =>
    pool({ ...base, updateStrategy: { type: 'RollingUpdate', rollingUpdate } });
  const window = (w: unknown) => ru({ maintenanceWindows: [w] });
  const cases: [string, unknown, [string, string][]][] = [
    ['a missing spec', { metadata: { name: 'p' } }, [['spec', 'FieldValueRequired']]],
    [
      'missing selectors',
      pool({}),
      [
        ['spec.nodeSelector', 'FieldValueRequired'],
        ['spec.configSelector', 'FieldValueRequired'],
      ],
    ],
    [
      'a name that cannot be a label value',
      pool(base, 'Workers.Pool'),
      [['metadata.name', 'FieldValueInvalid']],
    ],
    ['a name longer than 63', pool(base, 'a'.repeat(64)), [['metadata.name', 'FieldValueInvalid']]],
    [
      'a bad label key',
      pool({ ...base, nodeSelector: { matchLabels: { 'a/b/c': 'x' } } }),
      [['spec.nodeSelector.matchLabels', 'FieldValueInvalid']],
    ],
    [
      'a bad label value',
      pool({ ...base, nodeSelector: { matchLabels: { a: 'x y' } } }),
      [['spec.nodeSelector.matchLabels[a]', 'FieldValueInvalid']],
    ],
    [
      'In without values',
      pool({ ...base, configSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }),
      [['spec.configSelector.matchExpressions[0].values', 'FieldValueRequired']],
    ],
    [
      'a requirement that is not an object, then one without a key and one with a bad key',
      pool({
        ...base,
        configSelector: {
          matchExpressions: ['a', { operator: 'Exists' }, { key: '-a', operator: 'Exists' }],
        },
      }),
      [
        ['spec.configSelector.matchExpressions[0]', 'FieldValueTypeInvalid'],
        ['spec.configSelector.matchExpressions[1].key', 'FieldValueRequired'],
        ['spec.configSelector.matchExpressions[2].key', 'FieldValueInvalid'],
      ],
    ],
    [
      'Exists with values',
      pool({
        ...base,
        configSelector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      }),
      [['spec.configSelector.matchExpressions[0].values', 'FieldValueForbidden']],
    ],
    [
      'an unknown operator',
      pool({ ...base, configSelector: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] } }),
      [['spec.configSelector.matchExpressions[0].operator', 'FieldValueNotSupported']],
    ],
    [
      'an unknown strategy',
      pool({ ...base, updateStrategy: { type: 'BlueGreen' } }),
      [['spec.updateStrategy.type', 'FieldValueNotSupported']],
    ],
    [
      'settings of another strategy',
      pool({ ...base, updateStrategy: { type: 'OTA', rollingUpdate: { maxUnavailable: 2 } } }),
      [['spec.updateStrategy.rollingUpdate', 'FieldValueForbidden']],
    ],
    [
      'rolling update settings with the default type',
      pool({ ...base, updateStrategy: { serial: { slots: 1 } } }),
      [['spec.updateStrategy.serial', 'FieldValueForbidden']],
    ],
    [
      'Spread without a window',
      pool({ ...base, updateStrategy: { type: 'Spread' } }),
      [['spec.updateStrategy.spread', 'FieldValueRequired']],
    ],
    [
      'a Spread budget of zero',
      pool({ ...base, updateStrategy: { type: 'Spread', spread: { windowSeconds: 60, maxUnavailable: 0 } } }),
      [['spec.updateStrategy.spread.maxUnavailable', 'FieldValueInvalid']],
    ],
    [
      'a Spread budget that is no percentage',
      pool({
        ...base,
        updateStrategy: { type: 'Spread', spread: { windowSeconds: 60, maxUnavailable: 'ten' } },
      }),
      [['spec.updateStrategy.spread.maxUnavailable', 'FieldValueInvalid']],
    ],
    [
      'zero serial slots',
      pool({ ...base, updateStrategy: { type: 'Serial', serial: { slots: 0 } } }),
      [['spec.updateStrategy.serial.slots', 'FieldValueInvalid']],
    ],
    [
      'maxUnavailable 0',
      ru({ maxUnavailable: 0 }),
      [['spec.updateStrategy.rollingUpdate.maxUnavailable', 'FieldValueInvalid']],
    ],
    [
      'maxUnavailable 0%',
      ru({ maxUnavailable: '0%' }),
      [['spec.updateStrategy.rollingUpdate.maxUnavailable', 'FieldValueInvalid']],
    ],
    [
      'maxUnavailable 101%',
      ru({ maxUnavailable: '101%' }),
      [['spec.updateStrategy.rollingUpdate.maxUnavailable', 'FieldValueInvalid']],
    ],
    [
      'maxUnavailable "two"',
      ru({ maxUnavailable: 'two' }),
      [['spec.updateStrategy.rollingUpdate.maxUnavailable', 'FieldValueInvalid']],
    ],
    [
      'maxUnavailable 1.5',
      ru({ maxUnavailable: 1.5 }),
      [['spec.updateStrategy.rollingUpdate.maxUnavailable', 'FieldValueInvalid']],
    ],
    [
      'a zone cap of 0',
      ru({ maxUnavailablePerZone: 0 }),
      [['spec.updateStrategy.rollingUpdate.maxUnavailablePerZone', 'FieldValueInvalid']],
    ],
    [
      'a canary without nodes',
      ru({ canary: {} }),
      [['spec.updateStrategy.rollingUpdate.canary.nodes', 'FieldValueRequired']],
    ],
    [
      'a negative soak',
      ru({ minReadySeconds: -1 }),
      [['spec.updateStrategy.rollingUpdate.minReadySeconds', 'FieldValueInvalid']],
    ],
    [
      'a deadline not above the soak',
      ru({ minReadySeconds: 600, progressDeadlineSeconds: 600 }),
      [['spec.updateStrategy.rollingUpdate.progressDeadlineSeconds', 'FieldValueInvalid']],
    ],
    [
      'an unknown failure action and negative maxFailures',
      ru({ failurePolicy: { action: 'Ignore', maxFailures: -1 } }),
      [
        ['spec.updateStrategy.rollingUpdate.failurePolicy.action', 'FieldValueNotSupported'],
        ['spec.updateStrategy.rollingUpdate.failurePolicy.maxFailures', 'FieldValueInvalid'],
      ],
    ],
    [
      'a health gate with a bad selector',
      ru({ healthGate: { podSelector: { matchLabels: { '-a': 'b' } } } }),
      [['spec.updateStrategy.rollingUpdate.healthGate.podSelector.matchLabels', 'FieldValueInvalid']],
    ],
    [
      'a cron with 6 fields',
      window({ schedule: '0 0 2 * * *', duration: '1h' }),
      [['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].schedule', 'FieldValueInvalid']],
    ],
    [
      'a cron hour of 24',
      window({ schedule: '0 24 * * *', duration: '1h' }),
      [['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].schedule', 'FieldValueInvalid']],
    ],
    [
      'an unknown cron macro',
      window({ schedule: '@fortnightly', duration: '1h' }),
      [['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].schedule', 'FieldValueInvalid']],
    ],
    [
      'a duration without unit',
      window({ schedule: '@daily', duration: '60' }),
      [['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].duration', 'FieldValueInvalid']],
    ],
    [
      'a 30s window',
      window({ schedule: '@daily', duration: '30s' }),
      [['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].duration', 'FieldValueInvalid']],
    ],
    [
      'an unknown time zone',
      window({ schedule: '@daily', duration: '1h', timeZone: 'Mars/Olympus' }),
      [['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].timeZone', 'FieldValueInvalid']],
    ],
    [
      'a fixed-offset time zone',
      window({ schedule: '@daily', duration: '1h', timeZone: '+01:00' }),
      [['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].timeZone', 'FieldValueInvalid']],
    ],
    [
      'a schedule that never fires (31 February)',
      window({ schedule: '0 2 31 2 *', duration: '1h' }),
      [['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].schedule', 'FieldValueInvalid']],
    ],
    [
      'a window without schedule and duration',
      window({}),
      [
        ['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].schedule', 'FieldValueRequired'],
        ['spec.updateStrategy.rollingUpdate.maintenanceWindows[0].duration', 'FieldValueRequired'],
      ],
    ],
    [
      'a wave after itself',
      pool({ ...base, updateStrategy: { wave: { after: ['canary', 'workers'] } } }),
      [['spec.updateStrategy.wave.after[1]', 'FieldValueInvalid']],
    ],
    [
      'a wave naming a pool twice, and a name that is no pool name',
      pool({ ...base, updateStrategy: { wave: { after: ['canary', 'canary', 'Not_A_Pool'] } } }),
      [
        ['spec.updateStrategy.wave.after[1]', 'FieldValueDuplicate'],
        ['spec.updateStrategy.wave.after[2]', 'FieldValueInvalid'],
      ],
    ],
    [
      'a wave without after, with a negative soak',
      pool({ ...base, updateStrategy: { wave: { soakSeconds: -1 } } }),
      [
        ['spec.updateStrategy.wave.after', 'FieldValueRequired'],
        ['spec.updateStrategy.wave.soakSeconds', 'FieldValueInvalid'],
      ],
    ],
    [
      'a wave after too many pools',
      pool({ ...base, updateStrategy: { wave: { after: Array.from({ length: 33 }, (_, i) => `p${i}`) } } }),
      [['spec.updateStrategy.wave.after', 'FieldValueInvalid']],
    ],
    [
      'a negative history limit',
      pool({ ...base, revisionHistoryLimit: -1 }),
      [['spec.revisionHistoryLimit', 'FieldValueInvalid']],
    ],
    ['paused as a string', pool({ ...base, paused: 'true' }), [['spec.paused', 'FieldValueTypeInvalid']]],
    [
      'a drift policy that does not exist',
      pool({ ...base, drift: { policy: 'Ignore' } }),
      [['spec.drift.policy', 'FieldValueNotSupported']],
    ],
    ['drift as a string', pool({ ...base, drift: 'Report' }), [['spec.drift', 'FieldValueTypeInvalid']]],
    [
      'an OS reboot policy that does not exist',
      pool({ ...base, reboots: { osRequested: { policy: 'Always' } } }),
      [['spec.reboots.osRequested.policy', 'FieldValueNotSupported']],
    ],
    [
      'pre-staging no node at a time',
      pool({ ...base, prestage: { maxConcurrent: 0 } }),
      [['spec.prestage.maxConcurrent', 'FieldValueInvalid']],
    ],
    [
      'a pre-stage timeout of zero',
      pool({ ...base, prestage: { timeoutSeconds: 0 } }),
      [['spec.prestage.timeoutSeconds', 'FieldValueInvalid']],
    ],
    [
      'a pre-stage timeout beyond a day',
      pool({ ...base, prestage: { timeoutSeconds: 86_401 } }),
      [['spec.prestage.timeoutSeconds', 'FieldValueInvalid']],
    ],
    [
      'a pre-stage timeout as a string',
      pool({ ...base, prestage: { timeoutSeconds: '15m' } }),
      [['spec.prestage.timeoutSeconds', 'FieldValueTypeInvalid']],
    ],
    ['pre-staging as a number', pool({ ...base, prestage: 3 }), [['spec.prestage', 'FieldValueTypeInvalid']]],
    ...(['Serial', 'Spread', 'OnDelete', 'OTA'] as const).map(
      (type) =>
        [
          `pre-staging under ${type} (RollingUpdate only)`,
          pool({
            ...base,
            updateStrategy: { type, ...(type === 'Spread' ? { spread: { windowSeconds: 60 } } : {}) },
            prestage: {},
          }),
          [['spec.prestage', 'FieldValueForbidden']],
        ] as [string, unknown, [string, string][]],
    ),
    ...(['Serial', 'Spread', 'OnDelete', 'OTA'] as const).map(
      (type) =>
        [
          `OS reboots by the controller under ${type} (RollingUpdate only)`,
          pool({
            ...base,
            updateStrategy: { type, ...(type === 'Spread' ? { spread: { windowSeconds: 60 } } : {}) },
            reboots: { osRequested: { policy: 'Reboot' } },
          }),
          [['spec.reboots.osRequested.policy', 'FieldValueForbidden']],
        ] as [string, unknown, [string, string][]],
    ),
    [
      'a relative sentinel file',
      pool({ ...base, reboots: { osRequested: { sentinelFile: 'var/run/reboot-required' } } }),
      [['spec.reboots.osRequested.sentinelFile', 'FieldValueInvalid']],
    ],
    [
      'a sentinel file with ..',
      pool({ ...base, reboots: { osRequested: { sentinelFile: '/var/run/../../etc/shadow' } } }),
      [['spec.reboots.osRequested.sentinelFile', 'FieldValueInvalid']],
    ],
    [
      'a sentinel command as a shell string',
      pool({ ...base, reboots: { osRequested: { sentinelCommand: 'needs-restarting -r' } } }),
      [['spec.reboots.osRequested.sentinelCommand', 'FieldValueTypeInvalid']],
    ],
    [
      'a sentinel command found on PATH',
      pool({ ...base, reboots: { osRequested: { sentinelCommand: ['needs-restarting', '-r'] } } }),
      [['spec.reboots.osRequested.sentinelCommand[0]', 'FieldValueInvalid']],
    ],
    [
      'an empty sentinel command',
      pool({ ...base, reboots: { osRequested: { sentinelCommand: [] } } }),
      [['spec.reboots.osRequested.sentinelCommand', 'FieldValueInvalid']],
    ],
    [
      'a sentinel command with a number argument',
      pool({ ...base, reboots: { osRequested: { sentinelCommand: ['/bin/true', 1] } } }),
      [['spec.reboots.osRequested.sentinelCommand[1]', 'FieldValueTypeInvalid']],
    ],
    [
      'a sentinel command of 33 arguments',
      pool({
        ...base,
        reboots: {
          osRequested: { sentinelCommand: ['/bin/true', ...Array.from({ length: 32 }, () => 'x')] },
        },
      }),
      [['spec.reboots.osRequested.sentinelCommand', 'FieldValueInvalid']],
    ],
    [
      'a sentinel timeout of 0',
      pool({ ...base, reboots: { osRequested: { timeoutSeconds: 0 } } }),
      [['spec.reboots.osRequested.timeoutSeconds', 'FieldValueInvalid']],
    ],
    [
      'osRequested as a list',
      pool({ ...base, reboots: { osRequested: ['Reboot'] } }),
      [['spec.reboots.osRequested', 'FieldValueTypeInvalid']],
    ],
    [
      'rollback to revision 0',
      pool({ ...base, rollbackTo: { revision: 0 } }),
      [['spec.rollbackTo.revision', 'FieldValueInvalid']],
    ],
    [
      'a webhook given as a URL (a pool names webhooks, never where requests go)',
      pool({ ...base, notifications: { webhooks: ['https://hooks.slack.com/services/T/B/X'] } }),
      [['spec.notifications.webhooks[0]', 'FieldValueInvalid']],
    ],
    [
      'Force without a timeout',
      pool({ ...base, drain: { onTimeout: 'Force' } }),
      [['spec.drain.timeoutSeconds', 'FieldValueRequired']],
    ],
    [
      'Force with a timeout the progress deadline comes before',
      pool({
        ...base,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { progressDeadlineSeconds: 60 } },
        drain: { onTimeout: 'Force', timeoutSeconds: 60 },
      }),
      [['spec.drain.timeoutSeconds', 'FieldValueInvalid']],
    ],
    [
      'Skip without a timeout',
      pool({ ...base, drain: { onTimeout: 'Skip' } }),
      [['spec.drain.timeoutSeconds', 'FieldValueRequired']],
    ],
    [
      'Skip with a timeout the progress deadline comes before',
      pool({
        ...base,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { progressDeadlineSeconds: 60 } },
        drain: { onTimeout: 'Skip', timeoutSeconds: 90, maxSkipped: 2 },
      }),
      [['spec.drain.timeoutSeconds', 'FieldValueInvalid']],
    ],
    [
      'maxSkipped without Skip',
      pool({ ...base, drain: { onTimeout: 'Force', timeoutSeconds: 5, maxSkipped: 3 } }),
      [['spec.drain.maxSkipped', 'FieldValueForbidden']],
    ],
    [
      'maxSkipped 0',
      pool({ ...base, drain: { onTimeout: 'Skip', timeoutSeconds: 5, maxSkipped: 0 } }),
      [['spec.drain.maxSkipped', 'FieldValueInvalid']],
    ],
    [
      'an order by label without the label',
      pool({ ...base, rolloutOrder: { by: 'Label' } }),
      [['spec.rolloutOrder.label', 'FieldValueRequired']],
    ],
    [
      'a label with another order',
      pool({ ...base, rolloutOrder: { by: 'Zone', label: 'rank' } }),
      [['spec.rolloutOrder.label', 'FieldValueForbidden']],
    ],
    [
      'an order that does not exist',
      pool({ ...base, rolloutOrder: { by: 'Random' } }),
      [['spec.rolloutOrder.by', 'FieldValueNotSupported']],
    ],
    [
      'a label key that is no label key',
      pool({ ...base, rolloutOrder: { by: 'Label', label: 'no spaces' } }),
      [['spec.rolloutOrder.label', 'FieldValueInvalid']],
    ],
    [
      'the next batch tainted under Serial',
      pool({
        ...base,
        updateStrategy: { type: 'Serial' },
        rolloutOrder: { preferNoScheduleNext: true },
      }),
      [['spec.rolloutOrder.preferNoScheduleNext', 'FieldValueForbidden']],
    ],
    [
      'an escalation that does not exist',
      pool({ ...base, drain: { onTimeout: 'Ignore', timeoutSeconds: 5 } }),
      [['spec.drain.onTimeout', 'FieldValueNotSupported']],
    ],
    [
      'forceDeleteBudgetedPods without Force',
      pool({ ...base, drain: { forceDeleteBudgetedPods: true } }),
      [['spec.drain.forceDeleteBudgetedPods', 'FieldValueForbidden']],
    ],
    [
      'a negative grace period and a bad skip selector',
      pool({
        ...base,
        drain: {
          gracePeriodSeconds: -1,
          skipPodSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] },
        },
      }),
      [
        ['spec.drain.gracePeriodSeconds', 'FieldValueInvalid'],
        ['spec.drain.skipPodSelector.matchExpressions[0].operator', 'FieldValueNotSupported'],
      ],
    ],
    [
      'notifications without webhooks',
      pool({ ...base, notifications: {} }),
      [['spec.notifications.webhooks', 'FieldValueRequired']],
    ],
    [
      'a webhook named twice',
      pool({ ...base, notifications: { webhooks: ['ops', 'ops'] } }),
      [['spec.notifications.webhooks[1]', 'FieldValueDuplicate']],
    ],
    [
      'too many webhooks',
      pool({ ...base, notifications: { webhooks: Array.from({ length: 9 }, (_, i) => `w${i}`) } }),
      [['spec.notifications.webhooks', 'FieldValueInvalid']],
    ],
  ];
  for (const [name, obj, expected] of cases) test(name, () => assert.deepEqual(causesOf(obj), expected));
});

test('maintenance window errors say what is wrong with the field', () => {
  const messages = (w: unknown) =>
    validateNodeConfigPool(
      pool({
        ...base,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maintenanceWindows: [w] } },
      }),
    ).map((c) => `${c.field}: ${c.message}`);
  const zone = 'spec.updateStrategy.rollingUpdate.maintenanceWindows[0].timeZone';
  const schedule = 'spec.updateStrategy.rollingUpdate.maintenanceWindows[0].schedule';
  assert.match(
    messages({ schedule: '@daily', duration: '1h', timeZone: 'Europe/Berlinn' }).join('\n'),
    new RegExp(`^${zone.replace(/[.[\]]/g, '\\$&')}: .*Europe/Berlinn.*IANA time zone`),
  );
  assert.match(
    messages({ schedule: '@daily', duration: '1h', timeZone: '-05:00' }).join('\n'),
    /not a fixed offset/,
  );
  assert.match(messages({ schedule: '0 2 30 2 *', duration: '1h' }).join('\n'), /schedule: .*never fires/);
  assert.ok(messages({ schedule: '0 2 30 2 *', duration: '1h' }).every((m) => m.startsWith(schedule)));
  // Aliases and any case are IANA names too.
  assert.deepEqual(messages({ schedule: '@daily', duration: '1h', timeZone: 'US/Eastern' }), []);
  assert.deepEqual(messages({ schedule: '@daily', duration: '1h', timeZone: 'america/new_york' }), []);
});

test('the validator registry dispatches NodeConfigPool', () => {
  assert.deepEqual(
    validators.NodeConfigPool(pool({ ...base, paused: 1 })).map((c) => c.field),
    ['spec.paused'],
  );
});
