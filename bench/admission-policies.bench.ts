// What enforcing deploy/'s agent ValidatingAdmissionPolicy on the embedded server costs per write
// (issue 33): the policy (compiled once per stored object, as the admission policies stage does) judged
// against an agent's update of its Node's annotations (matched: every validation runs) and against a
// write by someone else (the matchConditions stop it). In-process, no HTTP: the added cost alone.
//
//   node bench/admission-policies.bench.ts [--iterations 20000]

import { parseArgs } from 'node:util';
import { agentAdmissionPolicy, agentAdmissionPolicyBinding } from '../src/api/agent-admission-policy.ts';
import { type AdmissionAttributes, evaluateAdmissionPolicy } from '../src/apiserver/cel/admission-policy.ts';
import { reportFigure } from './support/report.ts';

const { values } = parseArgs({ options: { iterations: { type: 'string', default: '20000' } } });
const iterations = Number(values.iterations);

const policy = agentAdmissionPolicy();
const binding = agentAdmissionPolicyBinding();
const node = (message: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'node-1',
    labels: { 'kubernetes.io/hostname': 'node-1', 'nodeherd.io/pool': 'web' },
    annotations: {
      'nodeherd.io/current-revision': 'web-abc',
      'nodeherd.io/desired-revision': 'web-abc',
      'nodeherd.io/available-revision': 'web-abc',
      'nodeherd.io/state': 'Applied',
      'nodeherd.io/message': message,
    },
  },
  spec: {},
  status: {
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'NodeConfigReady', status: 'True' },
    ],
    nodeInfo: { kubeletVersion: 'v1.32.0' },
  },
});

function attributes(username: string, groups: string[], i: number): AdmissionAttributes {
  return {
    operation: 'UPDATE',
    resource: { group: '', version: 'v1', resource: 'nodes' },
    kind: { group: '', version: 'v1', kind: 'Node' },
    name: 'node-1',
    object: node(`applied ${i}`),
    oldObject: node(`applied ${i - 1}`),
    userInfo: { username, groups },
    namespaced: false,
  };
}

function measure(label: string, username: string, groups: string[]): void {
  // Warm up (compilation happens on the first call, once per stored policy object).
  for (let i = 0; i < 200; i++) evaluateAdmissionPolicy(policy, attributes(username, groups, i), binding);
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const decision = evaluateAdmissionPolicy(policy, attributes(username, groups, i), binding);
    if (!decision.allowed) throw new Error(`${label}: denied: ${JSON.stringify(decision.failures)}`);
  }
  const micros = Number(process.hrtime.bigint() - started) / 1000 / iterations;
  process.stdout.write(`${label}: ${micros.toFixed(1)} µs per write (${iterations} writes)\n`);
  reportFigure({
    bench: 'admission-policies',
    name: label,
    value: Number(micros.toFixed(1)),
    unit: 'µs/write',
    note: `${iterations} writes, in-process`,
  });
}

measure("agent's Node annotation update, judged by the agent policy", 'nodeherd:agent:node-1', [
  'nodeherd:agents',
  'system:authenticated',
]);
measure(
  "controller's Node update, stopped by the policy's matchConditions",
  'system:serviceaccount:nodeherd:nodeherd-controller',
  ['system:serviceaccounts', 'system:authenticated'],
);
