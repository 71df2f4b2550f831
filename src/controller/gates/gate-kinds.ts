// The kinds of health gate a pool's healthGate may use, in the order their checks are reported.
// Adding a kind: its file beside this one (a GateKind) and its line below.

import { alertGates } from './alert-gate.ts';
import { blockingPods } from './blocking-pods.ts';
import { compareGates } from './compare-gate.ts';
import type { GateKind } from './gate-kind.ts';
import { metricGates } from './metric-gate.ts';

export const GATE_KINDS: readonly GateKind[] = [metricGates, compareGates, alertGates, blockingPods];
