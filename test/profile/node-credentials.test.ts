// One node's credentials against everything that is not that node's: another node, another pool, the
// controller's objects, and the server itself. Every attempt runs against the embedded API server over
// HTTPS and must be refused (403, or 413/400/422 where that is the right answer) with a Status body;
// every write attempt also runs through what a real cluster would decide with deploy/agent: the RBAC
// rules (AGENT_CLUSTER_RULES) and the ValidatingAdmissionPolicy's CEL (src/apiserver/cel), so the two
// cannot drift apart. Where a real cluster cannot say what the embedded server enforces (reads, which
// pool's slots a node was gated for), the row says so; docs/security.md lists the same gaps.
// The agent's legitimate paths are rows too, allowed by both.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { AGENT_CLUSTER_RULES } from '../../src/api/agent-cluster-rules.ts';
import {
  AVAILABLE_REVISION_ANNOTATION,
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  MESSAGE_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  PACKAGE_MANAGER_ANNOTATION,
  PRESTAGE_ASKED_AT_ANNOTATION,
  PRESTAGE_REVISION_ANNOTATION,
  PRESTAGED_ANNOTATION,
  REBOOT_REQUESTED_ANNOTATION,
  REBOOT_REQUIRED_CONDITION,
  REBOOTED_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  SERIAL_POOL_LABEL,
  SERIAL_SLOT_ANNOTATION,
  STATE_ANNOTATION,
  serialLeaseName,
} from '../../src/api/node-protocol.ts';
import { type RequestVerb, ruleAllows } from '../../src/apiserver/auth/authorizer.ts';
import { evaluateAdmissionPolicy } from '../../src/apiserver/cel/admission-policy.ts';
import { parseRequestInfo } from '../../src/apiserver/http/request-info.ts';
import { LEADER_LEASE_NAME } from '../../src/controller/controller-manager.ts';
import { type RawRequest, type RawResponse, raw } from '../apiserver/conformance/support.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';
import { revisionOf, secretSnapshot } from '../support/nodeherd-objects.ts';

type Json = Record<string, any>;

const GROUP_PATH = '/apis/nodeherd.io/v1alpha1';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/nodeherd/leases';
const NODE = 'node-a1';
const OTHER_NODE = 'node-b1';
const MiB = 1024 * 1024;

const deployDocs = parseAllDocuments(
  readFileSync(new URL('../../deploy/agent/admission-policy.yaml', import.meta.url), 'utf8'),
).map((d) => d.toJS() as Json);
const policy = deployDocs.find((d) => d.kind === 'ValidatingAdmissionPolicy')!;
const binding = deployDocs.find((d) => d.kind === 'ValidatingAdmissionPolicyBinding')!;
// The agent of node-a1 as a real cluster names it (src/apiserver/auth/identities.ts).
const agentUser = { username: `nodeherd:agent:${NODE}`, groups: ['nodeherd:agents', 'system:authenticated'] };

/** What a real cluster answers: 'denied', 'allowed', or allowed where it cannot confine (the why). */
type ClusterExpectation = 'denied' | 'allowed' | { gap: string };

interface Prepared {
  request: RawRequest;
  /** For admission: the object as it would be stored, and the stored one. */
  object?: Json;
  oldObject?: Json;
}

interface Attempt {
  name: string;
  as?: 'agent' | 'kubelet' | 'admin';
  prepare: () => Promise<Prepared>;
  /** HTTP code, and for a refusal the Status reason (and a part of its message). */
  embedded: { code: number; reason?: string; message?: RegExp };
  /** Omitted for what is the server's own business (sizes, nesting, patterns) rather than a policy's. */
  cluster?: ClusterExpectation;
}

let local: LocalApiServer;
const tokens: Record<'agent' | 'kubelet', string> = { agent: '', kubelet: '' };
const revisions: Record<'a1' | 'a2' | 'b1', string> = { a1: '', a2: '', b1: '' };

const send = (as: Attempt['as'], request: RawRequest): Promise<RawResponse> =>
  raw(local, { ...request, token: as === 'admin' || as === undefined ? undefined : tokens[as] });
const asAdmin = (request: RawRequest) => raw(local, request);

async function current(path: string): Promise<Json> {
  const res = await asAdmin({ path });
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.json;
}

// ---- Request builders: each returns the HTTP request and the admission view of it.

/** PUT of a changed copy of the stored object; for /status only status changes, as the server keeps the rest. */
function put(path: string, change: (object: Json) => void): () => Promise<Prepared> {
  return async () => {
    const statusWrite = path.endsWith('/status');
    const old = await current(statusWrite ? path.slice(0, -'/status'.length) : path);
    const next = structuredClone(old);
    change(next);
    const stored = statusWrite ? { ...old, status: next.status } : { ...next, status: old.status };
    if (stored.status === undefined) delete stored.status;
    return {
      request: { method: 'PUT', path, body: JSON.stringify(next) },
      object: stored,
      oldObject: old,
    };
  };
}

function post(path: string, body: Json): () => Promise<Prepared> {
  return async () => ({ request: { method: 'POST', path, body: JSON.stringify(body) }, object: body });
}

function remove(path: string): () => Promise<Prepared> {
  return async () => {
    const old = await current(path);
    return { request: { method: 'DELETE', path }, oldObject: old };
  };
}

function read(path: string): () => Promise<Prepared> {
  return async () => ({ request: { path } });
}

function patch(path: string, contentType: string, body: unknown): () => Promise<Prepared> {
  return async () => ({ request: { method: 'PATCH', path, contentType, body: JSON.stringify(body) } });
}

const annotate =
  (annotations: Record<string, string | null>) =>
  (node: Json): void => {
    node.metadata.annotations ??= {};
    for (const [key, value] of Object.entries(annotations)) {
      if (value === null) delete node.metadata.annotations[key];
      else node.metadata.annotations[key] = value;
    }
  };

const slotLease = (pool: string, slot: number, holder: string, labels = { [SERIAL_POOL_LABEL]: pool }) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: serialLeaseName(pool, slot), namespace: 'nodeherd', labels },
  spec: { holderIdentity: holder, leaseDurationSeconds: 60, renewTime: '2026-01-01T00:00:00.000000Z' },
});

const nodeEvent = (about: string, namespace = 'default') => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: `${about}.${Math.random().toString(36).slice(2, 8)}`, namespace },
  involvedObject: { kind: 'Node', name: about, apiVersion: 'v1' },
  reason: 'Applied',
  message: 'ok',
  type: 'Normal',
});

// Written as text: JSON.stringify itself recurses and would overflow on such a value.
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const FORBIDDEN = { code: 403, reason: 'Forbidden' };
const OK = { code: 200 };
const CREATED = { code: 201 };
const READS_UNCONFINED = {
  gap: 'RBAC cannot confine reads to "its own" objects and admission never sees reads (docs/real-cluster.md)',
};
const GATE_UNSEEN = {
  gap: "the policy cannot read the Node's serial gate, so it cannot tell which pool's slots are this node's",
};

const attempts: Attempt[] = [
  // ---- Its own Node: what the agent protocol gives it.
  {
    name: 'reports its state in the protocol annotations (legitimate)',
    prepare: put(
      `/api/v1/nodes/${NODE}`,
      annotate({
        [STATE_ANNOTATION]: 'Done',
        [MESSAGE_ANNOTATION]: 'applied',
        [CURRENT_REVISION_ANNOTATION]: 'x',
      }),
    ),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: 'reports its NodeConfigReady condition (legitimate)',
    prepare: put(`/api/v1/nodes/${NODE}/status`, (node) => {
      node.status.conditions = [
        ...node.status.conditions.filter((c: Json) => c.type !== 'NodeConfigReady'),
        { type: 'NodeConfigReady', status: 'True', reason: 'Applied', message: 'ok' },
      ];
    }),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: 'reports its ConfigDrift condition (legitimate)',
    prepare: put(`/api/v1/nodes/${NODE}/status`, (node) => {
      node.status.conditions = [
        ...node.status.conditions.filter((c: Json) => c.type !== 'ConfigDrift'),
        { type: 'ConfigDrift', status: 'True', reason: 'DriftDetected', message: 'file /etc/x: content' },
      ];
    }),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: 'reports that its OS asks for a reboot in its RebootRequired condition (legitimate)',
    prepare: put(`/api/v1/nodes/${NODE}/status`, (node) => {
      node.status.conditions = [
        ...node.status.conditions.filter((c: Json) => c.type !== REBOOT_REQUIRED_CONDITION),
        {
          type: REBOOT_REQUIRED_CONDITION,
          status: 'True',
          reason: 'SentinelFile',
          message: 'the OS asks for a reboot (/var/run/reboot-required); packages: linux-image-amd64',
        },
      ];
    }),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: 'answers a reboot request in nodeherd.io/rebooted (legitimate)',
    prepare: put(`/api/v1/nodes/${NODE}`, annotate({ [REBOOTED_ANNOTATION]: '2026-01-01T00:00:00Z' })),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: 'reports its package manager in nodeherd.io/package-manager (legitimate)',
    prepare: put(`/api/v1/nodes/${NODE}`, annotate({ [PACKAGE_MANAGER_ANNOTATION]: 'dnf' })),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: 'asks for its own reboot (nodeherd.io/reboot-requested is the controller’s)',
    prepare: put(
      `/api/v1/nodes/${NODE}`,
      annotate({ [REBOOT_REQUESTED_ANNOTATION]: '2026-01-01T00:00:00Z' }),
    ),
    embedded: { ...FORBIDDEN, message: /nodeherd\.io\/reboot-requested/ },
    cluster: 'denied',
  },
  {
    name: 'reports its pre-stage outcome in nodeherd.io/prestaged (legitimate)',
    prepare: put(
      `/api/v1/nodes/${NODE}`,
      annotate({ [PRESTAGED_ANNOTATION]: JSON.stringify({ revision: 'x', outcome: 'Downloaded' }) }),
    ),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: 'asks to be pre-staged (nodeherd.io/prestage-revision is the controller’s)',
    prepare: put(`/api/v1/nodes/${NODE}`, annotate({ [PRESTAGE_REVISION_ANNOTATION]: 'x' })),
    embedded: { ...FORBIDDEN, message: /nodeherd\.io\/prestage-revision/ },
    cluster: 'denied',
  },
  {
    name: 'resets the time of its pre-stage ask (nodeherd.io/prestage-asked-at is the controller’s: spec.prestage.timeoutSeconds counts from it)',
    prepare: put(
      `/api/v1/nodes/${NODE}`,
      annotate({ [PRESTAGE_ASKED_AT_ANNOTATION]: '2099-01-01T00:00:00.000Z' }),
    ),
    embedded: { ...FORBIDDEN, message: /nodeherd\.io\/prestage-asked-at/ },
    cluster: 'denied',
  },
  {
    name: 'adds a condition of a type not its own (only NodeConfigReady, ConfigDrift and RebootRequired are)',
    prepare: put(`/api/v1/nodes/${NODE}/status`, (node) => {
      node.status.conditions = [
        ...node.status.conditions,
        { type: 'ConfigDriftFixed', status: 'True', reason: 'Spoofed', message: 'not the agent’s' },
      ];
    }),
    embedded: { ...FORBIDDEN, message: /NodeConfigReady and ConfigDrift/ },
    cluster: 'denied',
  },
  {
    name: "removes the kubelet's Ready condition while writing its ConfigDrift condition",
    prepare: put(`/api/v1/nodes/${NODE}/status`, (node) => {
      node.status.conditions = [
        ...node.status.conditions.filter((c: Json) => c.type !== 'Ready' && c.type !== 'ConfigDrift'),
        { type: 'ConfigDrift', status: 'False', reason: 'NoDrift', message: 'ok' },
      ];
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'pulls the available revision over the air by copying it into desired-revision (legitimate)',
    prepare: async () =>
      put(`/api/v1/nodes/${NODE}`, annotate({ [DESIRED_REVISION_ANNOTATION]: revisions.a2 }))(),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: "points desired-revision at another pool's revision",
    prepare: async () =>
      put(`/api/v1/nodes/${NODE}`, annotate({ [DESIRED_REVISION_ANNOTATION]: revisions.b1 }))(),
    embedded: {
      ...FORBIDDEN,
      message: /desired-revision only to its Node's nodeherd.io\/available-revision/,
    },
    cluster: 'denied',
  },
  {
    name: 'removes its desired-revision',
    prepare: put(`/api/v1/nodes/${NODE}`, annotate({ [DESIRED_REVISION_ANNOTATION]: null })),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'changes the available-revision the controller announced',
    prepare: async () =>
      put(`/api/v1/nodes/${NODE}`, annotate({ [AVAILABLE_REVISION_ANNOTATION]: revisions.b1 }))(),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'rewrites its serial gate to another pool',
    prepare: put(
      `/api/v1/nodes/${NODE}`,
      annotate({
        [SERIAL_GATE_ANNOTATION]: JSON.stringify({ pool: 'pool-b', slots: 9, leaseDurationSeconds: 60 }),
      }),
    ),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'tells itself it was handed a Serial slot (the controller’s serial-slot)',
    prepare: put(
      `/api/v1/nodes/${NODE}`,
      annotate({
        [SERIAL_SLOT_ANNOTATION]: JSON.stringify({
          lease: serialLeaseName('pool-a', 0),
          handedOverAt: '2020-01-01T00:00:00.000000Z',
        }),
      }),
    ),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'lifts the hold the controller put on it',
    prepare: put(`/api/v1/nodes/${NODE}`, annotate({ [HOLD_ANNOTATION]: null })),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'moves its Spread start time',
    prepare: put(`/api/v1/nodes/${NODE}`, annotate({ [NOT_BEFORE_ANNOTATION]: '2020-01-01T00:00:00Z' })),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'writes an annotation outside the protocol',
    prepare: put(`/api/v1/nodes/${NODE}`, annotate({ 'example.com/owner': 'me' })),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'relabels itself into another pool',
    prepare: put(`/api/v1/nodes/${NODE}`, (node) => {
      node.metadata.labels.pool = 'b';
    }),
    embedded: { ...FORBIDDEN, message: /may not change the labels/ },
    cluster: 'denied',
  },
  {
    name: 'sets a node-restriction.kubernetes.io/ label',
    prepare: put(`/api/v1/nodes/${NODE}`, (node) => {
      node.metadata.labels['node-restriction.kubernetes.io/pool'] = 'b';
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'cordons itself (spec.unschedulable)',
    prepare: put(`/api/v1/nodes/${NODE}`, (node) => {
      node.spec = { ...node.spec, unschedulable: true };
    }),
    embedded: { ...FORBIDDEN, message: /spec/ },
    cluster: 'denied',
  },
  {
    name: 'removes a taint from itself',
    prepare: put(`/api/v1/nodes/${NODE}`, (node) => {
      node.spec.taints = [];
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'adds a finalizer to its Node',
    prepare: put(`/api/v1/nodes/${NODE}`, (node) => {
      node.metadata.finalizers = ['example.com/keep'];
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: "rewrites the kubelet's Ready condition",
    prepare: put(`/api/v1/nodes/${NODE}/status`, (node) => {
      node.status.conditions = node.status.conditions.map((c: Json) =>
        c.type === 'Ready' ? { ...c, status: 'False', reason: 'Spoofed' } : c,
      );
    }),
    embedded: { ...FORBIDDEN, message: /NodeConfigReady/ },
    cluster: 'denied',
  },
  {
    name: 'inflates its capacity',
    prepare: put(`/api/v1/nodes/${NODE}/status`, (node) => {
      node.status.capacity = { cpu: '512' };
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'deletes its own Node',
    prepare: remove(`/api/v1/nodes/${NODE}`),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'registers its own Node anew (the kubelet registers Nodes)',
    prepare: post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  // ---- Another node.
  {
    name: 'reads another Node',
    prepare: read(`/api/v1/nodes/${OTHER_NODE}`),
    embedded: FORBIDDEN,
    cluster: READS_UNCONFINED,
  },
  {
    name: 'lists all Nodes',
    prepare: read('/api/v1/nodes'),
    embedded: FORBIDDEN,
    cluster: READS_UNCONFINED,
  },
  {
    name: "writes another Node's state",
    prepare: put(`/api/v1/nodes/${OTHER_NODE}`, annotate({ [STATE_ANNOTATION]: 'Failed' })),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: "writes another Node's NodeConfigReady condition",
    prepare: put(`/api/v1/nodes/${OTHER_NODE}/status`, (node) => {
      node.status.conditions = [{ type: 'NodeConfigReady', status: 'False', reason: 'Spoofed' }];
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'registers another Node with chosen labels',
    prepare: post('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-x', labels: { pool: 'b' } },
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'creates an Event about another Node',
    prepare: post('/api/v1/namespaces/default/events', nodeEvent(OTHER_NODE)),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'creates an Event about its Node in kube-system',
    prepare: post('/api/v1/namespaces/kube-system/events', nodeEvent(NODE, 'kube-system')),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'creates an Event about its own Node (legitimate)',
    prepare: post('/api/v1/namespaces/default/events', nodeEvent(NODE)),
    embedded: CREATED,
    cluster: 'allowed',
  },
  // ---- Secrets.
  {
    name: "reads a Secret its pool's revision references (legitimate)",
    prepare: read('/api/v1/namespaces/nodeherd/secrets/secret-a'),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: "reads another pool's Secret",
    prepare: read('/api/v1/namespaces/nodeherd/secrets/secret-b'),
    embedded: FORBIDDEN,
    cluster: READS_UNCONFINED,
  },
  {
    name: "claims another pool's revision as current, then reads that pool's Secret",
    prepare: async () => {
      const claimed = await put(
        `/api/v1/nodes/${NODE}`,
        annotate({ [CURRENT_REVISION_ANNOTATION]: revisions.b1 }),
      )();
      // current-revision is the agent's to report; what it may not do is gain Secrets by it.
      assert.equal((await send('agent', claimed.request)).status, 200);
      return { request: { path: '/api/v1/namespaces/nodeherd/secrets/secret-b' } };
    },
    embedded: FORBIDDEN,
    cluster: READS_UNCONFINED,
  },
  {
    name: "is told to pre-stage another pool's revision, then reads that pool's Secret",
    prepare: async () => {
      // The controller's annotation, written as the admin: pre-staging needs packages, never Secrets.
      const told = await put(
        `/api/v1/nodes/${NODE}`,
        annotate({ [PRESTAGE_REVISION_ANNOTATION]: revisions.b1 }),
      )();
      assert.equal((await asAdmin(told.request)).status, 200);
      return { request: { path: '/api/v1/namespaces/nodeherd/secrets/secret-b' } };
    },
    embedded: FORBIDDEN,
    cluster: READS_UNCONFINED,
  },
  {
    name: 'lists the Secrets of nodeherd',
    prepare: read('/api/v1/namespaces/nodeherd/secrets'),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'reads a Secret outside nodeherd',
    prepare: read('/api/v1/namespaces/default/secrets/elsewhere'),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: "overwrites another pool's Secret",
    prepare: put('/api/v1/namespaces/nodeherd/secrets/secret-b', (secret) => {
      secret.data = { key: Buffer.from('mine').toString('base64') };
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  // ---- The controller's objects.
  {
    name: 'takes the leader Lease',
    prepare: put(`${LEASES}/${LEADER_LEASE_NAME}`, (lease) => {
      lease.spec.holderIdentity = NODE;
      lease.spec.leaseDurationSeconds = 86_400;
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'deletes the leader Lease',
    prepare: remove(`${LEASES}/${LEADER_LEASE_NAME}`),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'creates an unrelated Lease in nodeherd',
    prepare: post(LEASES, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'squatter' },
      spec: { holderIdentity: NODE },
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'deletes every Lease in nodeherd',
    prepare: async () => ({ request: { method: 'DELETE', path: LEASES } }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'renews its heartbeat Lease (the kubelet does that)',
    prepare: post('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: NODE },
      spec: { holderIdentity: NODE },
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'changes its pool',
    prepare: put(`${GROUP_PATH}/nodeconfigpools/pool-a`, (pool) => {
      pool.spec.nodeSelector = {};
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'writes a revision of its own',
    prepare: post(`${GROUP_PATH}/nodeconfigrevisions`, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigRevision',
      metadata: { name: 'pool-a-forged' },
      spec: {},
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: "deletes another pool's revision",
    prepare: async () => remove(`${GROUP_PATH}/nodeconfigrevisions/${revisions.b1}`)(),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'creates a NodeConfig',
    prepare: post(`${GROUP_PATH}/nodeconfigs`, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'forged' },
      spec: {},
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  // ---- Serial slots: its own pool's, in its own name.
  {
    name: 'takes a slot of the pool it is gated for (legitimate)',
    prepare: post(LEASES, slotLease('pool-a', 0, NODE)),
    embedded: CREATED,
    cluster: 'allowed',
  },
  {
    name: 'renews the slot it holds (legitimate)',
    prepare: put(`${LEASES}/${serialLeaseName('pool-a', 0)}`, (lease) => {
      lease.spec.renewTime = '2026-01-01T00:00:10.000000Z';
    }),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: 'hands the slot it holds to another node',
    prepare: put(`${LEASES}/${serialLeaseName('pool-a', 0)}`, (lease) => {
      lease.spec.holderIdentity = OTHER_NODE;
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'releases the slot it holds (legitimate)',
    prepare: put(`${LEASES}/${serialLeaseName('pool-a', 0)}`, (lease) => {
      delete lease.spec.holderIdentity;
      delete lease.spec.renewTime;
    }),
    embedded: OK,
    cluster: 'allowed',
  },
  {
    name: 'takes a slot in the name of another node',
    prepare: post(LEASES, slotLease('pool-a', 1, OTHER_NODE)),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'takes a slot beyond the count its gate allows',
    prepare: post(LEASES, slotLease('pool-a', 7, NODE)),
    embedded: FORBIDDEN,
    cluster: GATE_UNSEEN,
  },
  {
    name: "takes a free slot of another pool's Serial rollout",
    prepare: post(LEASES, slotLease('pool-b', 1, NODE)),
    embedded: { ...FORBIDDEN, message: /pool "pool-a"/ },
    cluster: GATE_UNSEEN,
  },
  {
    name: "takes over another pool's held slot",
    prepare: put(`${LEASES}/${serialLeaseName('pool-b', 0)}`, (lease) => {
      lease.spec.holderIdentity = NODE;
    }),
    embedded: FORBIDDEN,
    cluster: GATE_UNSEEN,
  },
  {
    name: "releases another node's slot",
    prepare: put(`${LEASES}/${serialLeaseName('pool-b', 0)}`, (lease) => {
      delete lease.spec.holderIdentity;
    }),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: "deletes another node's slot",
    prepare: remove(`${LEASES}/${serialLeaseName('pool-b', 0)}`),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'takes a slot whose pool label does not match its name',
    prepare: post(LEASES, slotLease('pool-a', 1, NODE, { [SERIAL_POOL_LABEL]: 'pool-b' })),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  {
    name: 'takes a slot-named Lease without the pool label',
    prepare: post(LEASES, slotLease('pool-a', 1, NODE, {} as never)),
    embedded: FORBIDDEN,
    cluster: 'denied',
  },
  // ---- The server itself.
  {
    name: 'grows its own Node past 1.5 MiB with a JSON patch of its condition',
    prepare: patch(`/api/v1/nodes/${NODE}/status`, 'application/json-patch+json', [
      {
        op: 'add',
        path: '/status/conditions/-',
        // Within the 32 KiB a condition message may hold; sixty copies make 1.8 MB.
        value: { type: 'NodeConfigReady', status: 'True', reason: 'Big', message: 'x'.repeat(30_000) },
      },
      // Index 4: the big NodeConfigReady condition just added (after Ready and the agent's own three).
      ...Array.from({ length: 60 }, () => ({
        op: 'copy',
        from: '/status/conditions/4',
        path: '/status/conditions/-',
      })),
    ]),
    embedded: { code: 413, reason: 'RequestEntityTooLarge', message: /etcdserver: request is too large/ },
  },
  {
    name: 'keeps a 1 MiB message in its own condition',
    prepare: patch(`/api/v1/nodes/${NODE}/status`, 'application/json-patch+json', [
      {
        op: 'add',
        path: '/status/conditions/-',
        value: { type: 'NodeConfigReady', status: 'False', reason: 'Big', message: 'x'.repeat(1024 * 1024) },
      },
    ]),
    embedded: { code: 422, reason: 'Invalid', message: /Too long: may not be more than 32768 bytes/ },
  },
  {
    name: 'doubles its own Node thirty times with JSON patch copies',
    prepare: patch(`/api/v1/nodes/${NODE}`, 'application/json-patch+json', [
      { op: 'add', path: '/metadata/annotations/nodeherd.io~1message', value: 'x'.repeat(1000) },
      ...Array.from({ length: 30 }, (_, i) => ({
        op: 'copy',
        from: '/metadata',
        path: `/metadata/x${i}`,
      })),
    ]),
    embedded: { code: 413, reason: 'RequestEntityTooLarge', message: /accumulated size increase of copy/ },
  },
  {
    // A Pod: kube validates no size of an environment value, so only the store's cap refuses it
    // (a ConfigMap's own 1 MiB validation would answer first).
    name: 'stores an object of 2 MiB (admin: the cap is for everyone)',
    as: 'admin',
    prepare: post('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'huge' },
      spec: {
        containers: [{ name: 'c', image: 'busybox', env: [{ name: 'BLOB', value: 'x'.repeat(2 * MiB) }] }],
      },
    }),
    embedded: { code: 413, reason: 'RequestEntityTooLarge', message: /etcdserver: request is too large/ },
  },
  {
    name: 'sends its Node nested 5,000 levels deep',
    prepare: async () => ({
      request: {
        method: 'PUT',
        path: `/api/v1/nodes/${NODE}`,
        body: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"${NODE}"},"extra":${nested(5000)}}`,
      },
    }),
    embedded: { code: 400, reason: 'BadRequest', message: /exceeded max depth/ },
  },
  {
    name: 'sends a merge patch nested 5,000 levels deep',
    prepare: async () => ({
      request: {
        method: 'PATCH',
        path: `/api/v1/nodes/${NODE}`,
        contentType: 'application/merge-patch+json',
        body: `{"metadata":{"x":${nested(5000)}}}`,
      },
    }),
    embedded: { code: 400, reason: 'BadRequest', message: /exceeded max depth/ },
  },
  {
    name: 'feeds ^(a+)+$ a value that backtracking engines take minutes over (admin)',
    as: 'admin',
    prepare: post(`${GROUP_PATH.replace('nodeherd.io', 'example.com')}/namespaces/default/patterns`, {
      apiVersion: 'example.com/v1alpha1',
      kind: 'Pattern',
      metadata: { name: 'evil' },
      spec: { value: `${'a'.repeat(40)}b` },
    }),
    embedded: { code: 422, reason: 'Invalid', message: /should match '\^\(a\+\)\+\$'/ },
  },
  // ---- The kubelet of the same node: its own identity, NodeRestriction's limits.
  {
    name: 'kubelet: renews its heartbeat Lease (legitimate)',
    as: 'kubelet',
    prepare: put(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${NODE}`, (lease) => {
      lease.spec.renewTime = '2026-01-01T00:00:20.000000Z';
    }),
    embedded: OK,
  },
  {
    name: 'kubelet: sets a node-restriction.kubernetes.io/ label',
    as: 'kubelet',
    prepare: put(`/api/v1/nodes/${NODE}`, (node) => {
      node.metadata.labels['node-restriction.kubernetes.io/pool'] = 'b';
    }),
    embedded: { ...FORBIDDEN, message: /node-restriction/ },
  },
  {
    name: "kubelet: writes the agent's and controller's annotations",
    as: 'kubelet',
    prepare: async () =>
      put(`/api/v1/nodes/${NODE}`, annotate({ [DESIRED_REVISION_ANNOTATION]: revisions.b1 }))(),
    embedded: FORBIDDEN,
  },
  {
    name: 'kubelet: reads a Secret',
    as: 'kubelet',
    prepare: read('/api/v1/namespaces/nodeherd/secrets/secret-a'),
    embedded: FORBIDDEN,
  },
];

/** What deploy/agent (RBAC, then the admission policy) decides for the agent's request on a real cluster. */
function onRealCluster(prepared: Prepared): { allowed: boolean; why: string } {
  const url = new URL(prepared.request.path, 'https://x');
  const info = parseRequestInfo(prepared.request.method ?? 'GET', url.pathname, url.searchParams);
  if (!info.isResourceRequest) throw new Error(`not a resource request: ${prepared.request.path}`);
  const attrs = {
    verb: info.verb as RequestVerb,
    group: info.group,
    resource: info.resource,
    ...(info.subresource !== undefined ? { subresource: info.subresource } : {}),
    ...(info.namespace !== undefined ? { namespace: info.namespace } : {}),
  };
  if (!AGENT_CLUSTER_RULES.some((rule) => ruleAllows(rule, attrs))) return { allowed: false, why: 'RBAC' };
  const operation = { create: 'CREATE', update: 'UPDATE', patch: 'UPDATE', delete: 'DELETE' }[
    info.verb as string
  ] as 'CREATE' | 'UPDATE' | 'DELETE' | undefined;
  if (operation === undefined) return { allowed: true, why: 'RBAC allows the read' };
  const decision = evaluateAdmissionPolicy(
    policy,
    {
      operation,
      resource: { group: info.group, version: info.version, resource: info.resource },
      ...(info.subresource !== undefined ? { subResource: info.subresource } : {}),
      name: info.name ?? prepared.object?.metadata?.name,
      ...(info.namespace !== undefined ? { namespace: info.namespace } : {}),
      object: operation === 'DELETE' ? null : (prepared.object ?? null),
      oldObject: operation === 'CREATE' ? null : (prepared.oldObject ?? null),
      userInfo: agentUser,
    },
    binding,
  );
  return { allowed: decision.allowed, why: JSON.stringify(decision.failures.map((f) => f.message)) };
}

async function seed(): Promise<void> {
  const admin = async (request: RawRequest, ok = [200, 201]) => {
    const res = await asAdmin(request);
    assert.ok(ok.includes(res.status), `${request.method} ${request.path}: ${res.text}`);
    return res.json as Json;
  };
  for (const name of ['secret-a', 'secret-b']) {
    await admin({
      method: 'POST',
      path: '/api/v1/namespaces/nodeherd/secrets',
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name },
        data: { key: Buffer.from(name).toString('base64') },
      }),
    });
  }
  await admin({
    method: 'POST',
    path: '/api/v1/namespaces/default/secrets',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'elsewhere' } }),
  });
  const pools: Record<string, Json> = {};
  for (const [pool, label] of [
    ['pool-a', 'a'],
    ['pool-b', 'b'],
  ] as const) {
    pools[pool] = await admin({
      method: 'POST',
      path: `${GROUP_PATH}/nodeconfigpools`,
      body: JSON.stringify({
        apiVersion: 'nodeherd.io/v1alpha1',
        kind: 'NodeConfigPool',
        metadata: { name: pool },
        spec: { nodeSelector: { matchLabels: { pool: label } }, configSelector: {} },
      }),
    });
  }
  const createRevision = async (pool: string, secret: string, number: number, extra = '') => {
    const revision = revisionOf(
      pools[pool] as never,
      {
        files: [
          {
            path: '/etc/key.pem',
            content: { secretRef: { namespace: 'nodeherd', name: secret, key: 'key' } },
          },
          { path: '/etc/version', content: { inline: { data: `${number}${extra}` } } },
        ],
      },
      number,
      { secrets: (ref) => secretSnapshot(ref.name) },
    );
    await admin({
      method: 'POST',
      path: `${GROUP_PATH}/nodeconfigrevisions`,
      body: JSON.stringify(revision),
    });
    return revision.metadata.name;
  };
  revisions.a1 = await createRevision('pool-a', 'secret-a', 1);
  revisions.a2 = await createRevision('pool-a', 'secret-a', 2);
  revisions.b1 = await createRevision('pool-b', 'secret-b', 1);

  // The kubelets register their Nodes; the controller and the administrator annotate and taint them.
  const kubeletB = await local.server.issueCredential(
    'kubelet',
    OTHER_NODE,
    join(local.dataDir, 'kb.kubeconfig'),
  );
  for (const [node, label, token] of [
    [NODE, 'a', tokens.kubelet],
    [OTHER_NODE, 'b', kubeletB],
  ] as const) {
    const res = await raw(local, {
      method: 'POST',
      path: '/api/v1/nodes',
      token,
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: node, labels: { pool: label, 'kubernetes.io/hostname': node } },
        status: {
          capacity: { cpu: '4' },
          conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready' }],
        },
      }),
    });
    assert.equal(res.status, 201, res.text);
    const lease = await raw(local, {
      method: 'POST',
      path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
      token,
      body: JSON.stringify({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: node },
        spec: { holderIdentity: node, leaseDurationSeconds: 40 },
      }),
    });
    assert.equal(lease.status, 201, lease.text);
  }
  const gate = (pool: string) => JSON.stringify({ pool, slots: 2, leaseDurationSeconds: 60 });
  await admin({
    method: 'PATCH',
    path: `/api/v1/nodes/${NODE}`,
    contentType: 'application/merge-patch+json',
    body: JSON.stringify({
      metadata: {
        annotations: {
          [DESIRED_REVISION_ANNOTATION]: revisions.a1,
          [AVAILABLE_REVISION_ANNOTATION]: revisions.a2,
          [SERIAL_GATE_ANNOTATION]: gate('pool-a'),
          [HOLD_ANNOTATION]: 'pool paused',
        },
      },
      spec: { taints: [{ key: 'dedicated', value: 'a', effect: 'NoSchedule' }] },
    }),
  });
  await admin({
    method: 'PATCH',
    path: `/api/v1/nodes/${OTHER_NODE}`,
    contentType: 'application/merge-patch+json',
    body: JSON.stringify({
      metadata: {
        annotations: {
          [DESIRED_REVISION_ANNOTATION]: revisions.b1,
          [SERIAL_GATE_ANNOTATION]: gate('pool-b'),
        },
      },
    }),
  });
  // The controller's leader Lease, and a slot of pool-b held by node-b1.
  await admin({
    method: 'POST',
    path: LEASES,
    body: JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: LEADER_LEASE_NAME },
      spec: { holderIdentity: 'nodeherd-controller-0', leaseDurationSeconds: 15 },
    }),
  });
  await admin({ method: 'POST', path: LEASES, body: JSON.stringify(slotLease('pool-b', 0, OTHER_NODE)) });

  // A custom resource whose schema has a catastrophic-backtracking pattern.
  await admin({
    method: 'POST',
    path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    body: JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'patterns.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'patterns', singular: 'pattern', kind: 'Pattern', listKind: 'PatternList' },
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { value: { type: 'string', pattern: '^(a+)+$' } } },
                },
              },
            },
          },
        ],
      },
    }),
  });
  for (let i = 0; ; i++) {
    if ((await asAdmin({ path: '/apis/example.com/v1alpha1/namespaces/default/patterns' })).status === 200)
      break;
    assert.ok(i < 100, 'the CRD is served');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The table runs twice: against the server as it starts (its policy seeded from deploy/'s generated
// objects) and after `kubectl apply -k deploy/` (issue 33: what was applied is what confines the agent).
for (const setup of ['as started', 'after kubectl apply -k deploy/'] as const) {
  describe(`one node’s credentials against everything that is not its own (${setup})`, () => {
    before(async () => {
      local = await startLocalApiServer();
      if (setup !== 'as started') {
        const applied = await local.kubectl([
          'apply',
          '-k',
          new URL('../../deploy/', import.meta.url).pathname,
        ]);
        assert.equal(applied.code, 0, applied.stderr);
      }
      tokens.agent = await local.server.issueCredential(
        'node',
        NODE,
        join(local.dataDir, 'agent.kubeconfig'),
      );
      tokens.kubelet = await local.server.issueCredential(
        'kubelet',
        NODE,
        join(local.dataDir, 'kubelet.kubeconfig'),
      );
      await seed();
    });
    after(() => local.stop());

    test('the table has enough attempts of each kind', () => {
      assert.ok(attempts.length >= 40, `${attempts.length} attempts`);
      assert.ok(attempts.filter((a) => a.embedded.code >= 400).length >= 40);
      assert.ok(attempts.filter((a) => a.cluster !== undefined).length >= 40);
    });

    test('each attempt gets the answer it should, from both the embedded server and a real cluster', async (t) => {
      for (const attempt of attempts) {
        await t.test(attempt.name, async () => {
          const prepared = await attempt.prepare();
          const res = await send(attempt.as ?? 'agent', prepared.request);
          assert.equal(
            res.status,
            attempt.embedded.code,
            `embedded server: HTTP ${res.status} ${res.text.slice(0, 500)}`,
          );
          if (attempt.embedded.code >= 400) {
            assert.equal(res.json?.kind, 'Status', res.text.slice(0, 300));
            assert.equal(res.json.code, attempt.embedded.code);
            assert.equal(res.json.reason, attempt.embedded.reason);
            if (attempt.embedded.message) assert.match(res.json.message, attempt.embedded.message);
          }
          if (attempt.cluster === undefined) return;
          const cluster = onRealCluster(prepared);
          const expectAllowed = attempt.cluster !== 'denied';
          assert.equal(
            cluster.allowed,
            expectAllowed,
            `real cluster: ${cluster.allowed ? 'allowed' : 'denied'} (${cluster.why}), expected ${JSON.stringify(attempt.cluster)}`,
          );
          // Where both can say it, they say the same.
          if (typeof attempt.cluster === 'string') {
            assert.equal(cluster.allowed, res.status < 400, 'the embedded server and a real cluster agree');
          }
        });
      }
    });

    test('every answer carries its request id as Audit-Id (the id an internal error is logged with)', async () => {
      const first = await asAdmin({ path: '/api/v1/namespaces/default/configmaps' });
      const refused = await send('agent', { path: '/api/v1/namespaces/default/configmaps' });
      assert.match(String(first.headers['audit-id']), /^[0-9a-f-]{36}$/);
      assert.match(String(refused.headers['audit-id']), /^[0-9a-f-]{36}$/);
      assert.notEqual(first.headers['audit-id'], refused.headers['audit-id']);
    });
  });
}
