// The agent's command line: flags win over environment variables, defaults, and clear errors.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, parseAgentConfig, usage } from '../../src/agent/agent-config.ts';

describe('agent configuration', () => {
  it('has defaults for a real node', () => {
    const config = parseAgentConfig([], { NODE_NAME: 'worker-1' })!;
    assert.equal(config.nodeName, 'worker-1');
    assert.equal(config.kubeconfig, '/etc/nodeherd/kubeconfig');
    assert.equal(config.stateDir, '/var/lib/nodeherd');
    assert.equal(config.rootDir, '/');
    assert.equal(config.backend, 'real');
    assert.deepEqual(config.metricsAddress, { host: '127.0.0.1', port: 9469 });
    assert.equal(config.rollback, 'pool');
    assert.equal(config.selfUnit, 'nodeherd-agent.service');
    assert.equal(config.exitOnRestart, false);
    assert.equal(config.unitTimeoutMs, 60_000);
    assert.equal(config.driftIntervalMs, 300_000);
  });

  it('reads flags, with environment variables as fallback', () => {
    const config = parseAgentConfig(
      [
        '--node-name',
        'n2',
        '--backend',
        'simulated-systemd',
        '--metrics-address',
        '[::1]:9100',
        '--exit-on-restart',
        '--watch-timeout-seconds',
        '60:120',
      ],
      {
        NODEHERD_NODE_NAME: 'ignored',
        NODEHERD_STATE_DIR: '/tmp/state',
        NODEHERD_SIMULATED_DURATIONS: '{"restart":50}',
        NODEHERD_ROLLBACK: 'always',
        NODEHERD_LOG_LEVEL: 'debug',
      },
    )!;
    assert.equal(config.nodeName, 'n2');
    assert.equal(config.backend, 'simulated-systemd');
    assert.deepEqual(config.metricsAddress, { host: '::1', port: 9100 });
    assert.equal(config.stateDir, '/tmp/state');
    assert.equal(config.simulationDir, '/tmp/state/simulation');
    assert.deepEqual(config.simulatedDurations, { restart: 50 });
    assert.equal(config.rollback, 'always');
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.exitOnRestart, true);
    assert.deepEqual(config.watchTimeoutSeconds, [60, 120]);
    assert.equal(parseAgentConfig(['--metrics-address', 'off'], {})!.metricsAddress, undefined);
    assert.equal(parseAgentConfig([], { NODEHERD_DRIFT_INTERVAL_SECONDS: '2.5' })!.driftIntervalMs, 2500);
    assert.equal(parseAgentConfig(['--drift-interval-seconds', '0'], {})!.driftIntervalMs, 0);
    assert.equal(parseAgentConfig([], {})!.rebootCheckIntervalMs, 300_000);
    assert.equal(
      parseAgentConfig([], { NODEHERD_REBOOT_CHECK_INTERVAL_SECONDS: '1' })!.rebootCheckIntervalMs,
      1000,
    );
    assert.equal(parseAgentConfig(['--reboot-check-interval-seconds', '0'], {})!.rebootCheckIntervalMs, 0);
  });

  it('refuses what it cannot use', () => {
    for (const args of [
      ['--backend', 'docker'],
      ['--rollback', 'sometimes'],
      ['--metrics-address', 'nowhere'],
      ['--simulated-durations', '{"restart":-1}'],
      ['--simulated-durations', 'fast'],
      ['--watch-timeout-seconds', '10:5'],
      ['--log-level', 'loud'],
      ['--drift-interval-seconds', '-1'],
      ['--drift-interval-seconds', 'often'],
      ['--reboot-check-interval-seconds', '-5'],
      ['--unknown'],
    ]) {
      assert.throws(() => parseAgentConfig(args, {}), ConfigError, args.join(' '));
    }
  });

  it('answers --help with the usage', () => {
    assert.equal(parseAgentConfig(['--help'], {}), undefined);
    assert.match(usage(), /--kubeconfig.*NODEHERD_KUBECONFIG/);
  });

  it('DaemonSet mode: the node’s root mounted in the pod, commands in the namespaces of PID 1, the pod’s token', () => {
    const env = { NODE_NAME: 'worker-1', NODEHERD_HOST_ROOT: '/host', NODEHERD_IN_CLUSTER: 'true' };
    const config = parseAgentConfig([], env)!;
    assert.equal(config.rootDir, '/host');
    assert.equal(config.hostPid, 1);
    assert.equal(config.inCluster, true);
    assert.equal(parseAgentConfig(['--host-pid', '4242'], env)!.hostPid, 4242);
    assert.equal(parseAgentConfig([], { NODE_NAME: 'w' })!.hostPid, undefined, 'not in host-root mode');
    const refused: [string[], RegExp][] = [
      [['--host-root', 'host'], /--host-root must be an absolute path/],
      [['--host-pid', '7'], /--host-pid needs --host-root/],
      [['--host-root', '/host', '--host-pid', '0'], /--host-pid must be a process id/],
      [['--host-root', '/host', '--root-dir', '/x'], /exclude each other/],
      [['--host-root', '/host', '--backend', 'simulated'], /--host-root needs --backend real/],
      [['--in-cluster', '--kubeconfig', '/k'], /--in-cluster and --kubeconfig exclude each other/],
    ];
    for (const [argv, message] of refused) {
      assert.throws(
        () => parseAgentConfig(argv, { NODE_NAME: 'w' }),
        (error: Error) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, message);
          return true;
        },
      );
    }
  });
});
