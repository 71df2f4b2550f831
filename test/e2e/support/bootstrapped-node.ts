// A node as the nspawn e2e tests start one: a Debian container booted with systemd-nspawn on the
// shared root filesystem, its Node registered with the control plane, and bootstrapped by
// nodeherd-init with the agent settings the test needs; and the agent's journal, which these tests
// put in their errors when a wait on the node fails.

import assert from 'node:assert/strict';
import { Container } from '../../../src/nspawn/container.ts';
import { waitFor } from '../../../src/nspawn/host.ts';
import { ensureRootfs } from '../../../src/nspawn/rootfs.ts';
import type { ControlPlane } from './control-plane.ts';

export const AGENT_UNIT = 'nodeherd-agent.service';

export interface BootstrapOptions {
  /** The agent's environment (NAME=value), given to nodeherd-init as --agent-env. */
  agentEnv?: string[];
  /** Boot the container again when it reboots (as systemd-nspawn@.service does). */
  restartOnReboot?: boolean;
  /** Runs once the Node is registered, before nodeherd-init (labels, a stand-in kubelet's Ready). */
  registered?: (node: Container) => Promise<void>;
}

/**
 * Boots container `name`, registers its Node and bootstraps it with nodeherd-init; fails (with the
 * container stopped) when nodeherd-init does.
 */
export async function bootstrappedNode(
  cp: ControlPlane,
  name: string,
  options: BootstrapOptions = {},
): Promise<Container> {
  const rootfs = await ensureRootfs();
  const node = await Container.boot({
    name,
    rootfs: rootfs.path,
    ...(options.restartOnReboot ? { restartOnReboot: true } : {}),
  });
  try {
    const token = await cp.registerNode(node.name);
    await options.registered?.(node);
    const extra = (options.agentEnv ?? []).flatMap((e) => ['--agent-env', e]);
    const result = await cp.runInit(node, cp.initArgs(node.name, token, extra));
    assert.equal(result.code, 0, `nodeherd-init: ${result.stderr}`);
    return node;
  } catch (error) {
    await node.stop();
    throw error;
  }
}

/** The agent's last `lines` journal lines (of the current boot only, when `thisBoot`); '' if unreadable. */
export async function agentJournal(node: Container, lines = 30, thisBoot = false): Promise<string> {
  const result = await node
    .exec([
      'journalctl',
      '-u',
      AGENT_UNIT,
      ...(thisBoot ? ['-b'] : []),
      '-n',
      String(lines),
      '-o',
      'cat',
      '--no-pager',
    ])
    .catch(() => undefined);
  return result?.stdout ?? '';
}

/** waitFor, with the agent's journal (`agentJournal`'s) added to the error when it times out. */
export async function waitWithJournal<T>(
  node: Container,
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs: number,
  journal: { lines?: number; thisBoot?: boolean } = {},
): Promise<T> {
  try {
    return await waitFor(what, check, timeoutMs, intervalMs);
  } catch (error) {
    throw new Error(
      `${(error as Error).message}\n${await agentJournal(node, journal.lines, journal.thisBoot)}`,
    );
  }
}
