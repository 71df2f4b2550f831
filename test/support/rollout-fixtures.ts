// Builders for rollout-decision tables: a healthy node on revision r1 and a pool rolling out r2.

import type {
  NodeSnapshot,
  RollingUpdateSettings,
  RolloutInput,
} from '../../src/controller/rollout/types.ts';

export const NOW = Date.parse('2025-06-02T10:00:00Z');

export function node(name: string, over: Partial<NodeSnapshot> = {}): NodeSnapshot {
  return {
    name,
    zone: '',
    ready: true,
    deleting: false,
    cordoned: false,
    cordonedByUs: false,
    desiredRevision: 'r1',
    currentRevision: 'r1',
    agentState: 'Done',
    configReady: true,
    podsReady: true,
    healthySince: NOW - 3_600_000,
    wasHealthy: false,
    needsDrain: false,
    ...over,
  };
}

/** A node given r2 `agoMs` ago and still applying it. */
export function updating(name: string, agoMs = 1_000, over: Partial<NodeSnapshot> = {}): NodeSnapshot {
  return node(name, { desiredRevision: 'r2', agentState: 'Applying', updateStartedAt: NOW - agoMs, ...over });
}

/** A node updated to r2, healthy since `healthyMs` ago. */
export function updated(name: string, healthyMs = 60_000, over: Partial<NodeSnapshot> = {}): NodeSnapshot {
  return node(name, {
    desiredRevision: 'r2',
    currentRevision: 'r2',
    updateStartedAt: NOW - healthyMs - 5_000,
    healthySince: NOW - healthyMs,
    wasHealthy: true,
    ...over,
  });
}

export function settings(over: Partial<RollingUpdateSettings> = {}): RollingUpdateSettings {
  return {
    maxUnavailable: 1,
    minReadySeconds: 0,
    progressDeadlineSeconds: 600,
    failurePolicy: { action: 'Pause', maxFailures: 0 },
    ...over,
  };
}

export function input(nodes: NodeSnapshot[], over: Partial<RolloutInput> = {}): RolloutInput {
  return {
    settings: settings(),
    paused: false,
    target: { name: 'r2', number: 2 },
    lastComplete: { name: 'r1', number: 1 },
    episodeStart: NOW - 600_000,
    nodes,
    now: NOW,
    ...over,
  };
}
