// Pod Security (issue 33): nothing here runs Pod Security admission, so the controller's pod spec is
// checked statically against the rules of the `restricted` profile (and `baseline`'s, which it
// includes), as kube's pod-security-admission policy checks them; the agents' DaemonSet, which must be
// privileged, lives in a namespace labelled so. The checker is shown to refuse the agent's pod, so it is
// not vacuous.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_METRICS_ADDRESS } from '../../src/agent/agent-config.ts';
import { AGENT_HTTP_PORT, deployManifestFiles } from '../../src/api/deploy-manifests.ts';

type Json = Record<string, any>;

const documents = deployManifestFiles('0.0.0').flatMap((file) => file.documents) as Json[];
const find = (kind: string, name: string) =>
  documents.find((d) => d.kind === kind && d.metadata.name === name)!;

const RESTRICTED_VOLUMES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];
const BASELINE_CAPABILITIES = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];
const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];

/** The restricted profile's violations of a pod spec, as pod-security-admission words its checks. */
function restrictedViolations(pod: Json): string[] {
  const out: string[] = [];
  const containers: Json[] = [
    ...(pod.initContainers ?? []),
    ...(pod.containers ?? []),
    ...(pod.ephemeralContainers ?? []),
  ];
  const podSc: Json = pod.securityContext ?? {};
  // baseline
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC'])
    if (pod[field]) out.push(`host namespaces (${field}=true)`);
  if (podSc.windowsOptions?.hostProcess) out.push('hostProcess');
  for (const c of containers) {
    const sc: Json = c.securityContext ?? {};
    if (sc.privileged) out.push(`privileged (container "${c.name}")`);
    if (sc.windowsOptions?.hostProcess) out.push(`hostProcess (container "${c.name}")`);
    for (const cap of sc.capabilities?.add ?? []) {
      if (!BASELINE_CAPABILITIES.includes(cap))
        out.push(`non-default capabilities (container "${c.name}": ${cap})`);
    }
    for (const port of c.ports ?? []) if (port.hostPort) out.push(`hostPort (container "${c.name}")`);
    if (sc.procMount && sc.procMount !== 'Default') out.push(`procMount (container "${c.name}")`);
    if (sc.seccompProfile?.type === 'Unconfined') out.push(`seccompProfile (container "${c.name}")`);
    if (sc.appArmorProfile && !['RuntimeDefault', 'Localhost'].includes(sc.appArmorProfile.type))
      out.push('appArmorProfile');
  }
  for (const v of pod.volumes ?? []) if (v.hostPath) out.push(`hostPath volumes ("${v.name}")`);
  for (const sysctl of podSc.sysctls ?? [])
    if (!SAFE_SYSCTLS.includes(sysctl.name)) out.push(`forbidden sysctls (${sysctl.name})`);
  if (podSc.seccompProfile?.type === 'Unconfined') out.push('seccompProfile (pod)');
  // restricted
  for (const v of pod.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== 'name');
    if (type === undefined || !RESTRICTED_VOLUMES.includes(type))
      out.push(`restricted volume types ("${v.name}": ${type})`);
  }
  for (const c of containers) {
    const sc: Json = c.securityContext ?? {};
    if (sc.allowPrivilegeEscalation !== false)
      out.push(`allowPrivilegeEscalation != false (container "${c.name}")`);
    if (!(sc.runAsNonRoot === true || (sc.runAsNonRoot === undefined && podSc.runAsNonRoot === true))) {
      out.push(`runAsNonRoot != true (container "${c.name}")`);
    }
    if ((sc.runAsUser ?? podSc.runAsUser) === 0) out.push(`runAsUser=0 (container "${c.name}")`);
    const seccomp = sc.seccompProfile?.type ?? podSc.seccompProfile?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost')
      out.push(`seccompProfile (container "${c.name}")`);
    const drop: string[] = sc.capabilities?.drop ?? [];
    if (!drop.includes('ALL')) out.push(`unrestricted capabilities (container "${c.name}" must drop ALL)`);
    for (const cap of sc.capabilities?.add ?? []) {
      if (cap !== 'NET_BIND_SERVICE')
        out.push(`unrestricted capabilities (container "${c.name}" adds ${cap})`);
    }
  }
  if (podSc.runAsUser === 0) out.push('runAsUser=0 (pod)');
  return out;
}

test("the controller's pod meets the restricted profile, and its namespace enforces it", () => {
  const pod = find('Deployment', 'nodeherd-controller').spec.template.spec;
  assert.deepEqual(restrictedViolations(pod), []);
  const namespace = find('Namespace', 'nodeherd');
  assert.equal(namespace.metadata.labels['pod-security.kubernetes.io/enforce'], 'restricted');
});

test("the agent's DaemonSet is privileged, in a namespace of its own that admits privileged pods", () => {
  const daemonSet = find('DaemonSet', 'nodeherd-agent');
  const violations = restrictedViolations(daemonSet.spec.template.spec);
  assert.ok(violations.includes('host namespaces (hostPID=true)'), violations.join('; '));
  assert.ok(violations.some((v) => v.startsWith('privileged')));
  assert.ok(violations.some((v) => v.startsWith('hostPath volumes')));
  const namespace = find('Namespace', daemonSet.metadata.namespace);
  assert.notEqual(daemonSet.metadata.namespace, find('Deployment', 'nodeherd-controller').metadata.namespace);
  assert.equal(namespace.metadata.labels['pod-security.kubernetes.io/enforce'], 'privileged');
});

test('the DaemonSet has probes on the agent port, requests and limits', () => {
  const [container] = find('DaemonSet', 'nodeherd-agent').spec.template.spec.containers;
  assert.equal(String(AGENT_HTTP_PORT), DEFAULT_METRICS_ADDRESS.split(':')[1]);
  for (const probe of [container.livenessProbe, container.readinessProbe]) {
    assert.deepEqual(probe.httpGet, { host: '127.0.0.1', path: '/healthz', port: AGENT_HTTP_PORT });
  }
  assert.ok(container.resources.requests.cpu && container.resources.requests.memory);
  assert.ok(container.resources.limits.cpu && container.resources.limits.memory);
});

test('the controller NetworkPolicy selects its pods and lets it reach DNS, the API server, Prometheus and webhooks', () => {
  const policy = find('NetworkPolicy', 'nodeherd-controller');
  const deployment = find('Deployment', 'nodeherd-controller');
  assert.deepEqual(policy.spec.podSelector.matchLabels, deployment.spec.selector.matchLabels);
  assert.deepEqual(policy.spec.policyTypes, ['Ingress', 'Egress']);
  const egressPorts = policy.spec.egress.flatMap((rule: Json) =>
    rule.ports.map((p: Json) => `${p.protocol}/${p.port}`),
  );
  for (const port of ['UDP/53', 'TCP/53', 'TCP/443', 'TCP/6443', 'TCP/9090', 'TCP/80']) {
    assert.ok(egressPorts.includes(port), `egress ${port}`);
  }
  assert.deepEqual(policy.spec.ingress, [{ ports: [{ protocol: 'TCP', port: 8080 }] }]);
});
