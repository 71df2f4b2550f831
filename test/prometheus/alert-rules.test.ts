// nodeherd's alerting rules with Debian's promtool (package prometheus): the shipped rule file and the
// PrometheusRule of deploy/components/prometheus hold the same rules and pass `promtool check rules`;
// `promtool test rules` runs the fixtures of alert-fixtures.ts (each alert firing with its labels,
// value and rendered annotations, and quiet just short of it), and fails on rules that never fire or
// always fire, so the fixtures judge the rules. The metrics the rules name are checked against a real
// controller in controller-metrics.integration.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { ALERT_RULE_GROUPS, type AlertRule, CONTROLLER_JOB } from '../../src/api/alert-rules.ts';
import { repositoryRoot } from '../../src/api/generated-files.ts';
import { PROMETHEUS_COMPONENT, PROMETHEUS_RULE_FILE } from '../../src/api/monitoring-manifests.ts';
import { ALERT_FIXTURES, type AlertCase } from './alert-fixtures.ts';

const PROMTOOL = process.env.NODEHERD_TEST_PROMTOOL ?? 'promtool';
const promtoolMissing =
  spawnSync(PROMTOOL, ['--version'], { encoding: 'utf8' }).status === 0
    ? false
    : `${PROMTOOL} is not installed (Debian package prometheus; .ci/run installs it)`;

const RULES = ALERT_RULE_GROUPS.flatMap((g) => g.rules);
let dir = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'nodeherd-alerts-'));
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function promtool(args: string[]): { code: number; output: string } {
  const result = spawnSync(PROMTOOL, args, { encoding: 'utf8', timeout: 120_000 });
  return { code: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

/** A template of the rules rendered as Prometheus does for `{{ $labels.x }}` and `{{ $value }}`. */
function render(template: string, labels: Record<string, string>, value: number): string {
  return template
    .replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, name: string) => labels[name] ?? '')
    .replace(/\{\{ \$value \}\}/g, String(value));
}

/** A promtool unit test of one case of one alert. */
function unitTest(rule: AlertRule, c: AlertCase): Record<string, unknown> {
  return {
    name: `${rule.alert}: ${c.name}`,
    interval: '1m',
    input_series: c.series,
    alert_rule_test: [
      {
        eval_time: `${c.at}m`,
        alertname: rule.alert,
        exp_alerts: c.fires.map((f) => ({
          exp_labels: { ...f.labels, severity: rule.labels.severity },
          exp_annotations: Object.fromEntries(
            Object.entries(rule.annotations).map(([k, v]) => [k, render(v, f.labels, f.value)]),
          ),
        })),
      },
    ],
  };
}

/** Writes the unit tests of every fixture against `ruleFile` and runs them. */
function testRules(ruleFile: string): { code: number; output: string } {
  const tests = ALERT_FIXTURES.flatMap((fixture) => {
    const rule = RULES.find((r) => r.alert === fixture.alert);
    assert.ok(rule, `fixture of an unknown alert ${fixture.alert}`);
    return fixture.cases.map((c) => unitTest(rule, c));
  });
  const path = join(dir, `tests-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, stringify({ rule_files: [ruleFile], evaluation_interval: '1m', tests }));
  return promtool(['test', 'rules', path]);
}

/** The shipped rules with every alert's expression replaced. */
function rulesWith(expr: string): string {
  const path = join(dir, `rules-${Math.random().toString(36).slice(2)}.yaml`);
  const groups = ALERT_RULE_GROUPS.map((g) => ({ ...g, rules: g.rules.map((r) => ({ ...r, expr })) }));
  writeFileSync(path, stringify({ groups }));
  return path;
}

const shipped = join(repositoryRoot, PROMETHEUS_RULE_FILE);

test('the rule file and the PrometheusRule hold the same rules, and promtool checks both', {
  skip: promtoolMissing,
}, () => {
  const file = parse(readFileSync(shipped, 'utf8')) as { groups: unknown };
  assert.deepEqual(file.groups, ALERT_RULE_GROUPS);
  const [resource] = parseAllDocuments(
    readFileSync(join(repositoryRoot, PROMETHEUS_COMPONENT, 'prometheus-rule.yaml'), 'utf8'),
  ).map((d) => d.toJS() as { kind: string; spec: { groups: unknown } });
  assert.equal(resource?.kind, 'PrometheusRule');
  assert.deepEqual(resource.spec.groups, file.groups);
  const fromResource = join(dir, 'from-prometheus-rule.yaml');
  writeFileSync(fromResource, stringify(resource.spec));
  for (const path of [shipped, fromResource]) {
    const checked = promtool(['check', 'rules', path]);
    assert.equal(checked.code, 0, checked.output);
    assert.match(checked.output, new RegExp(`SUCCESS: ${RULES.length} rules found`));
  }
  const kustomization = readFileSync(
    join(repositoryRoot, PROMETHEUS_COMPONENT, 'kustomization.yaml'),
    'utf8',
  );
  assert.match(kustomization, /kind: Component/);
  assert.match(kustomization, /prometheus-rule\.yaml/);
});

test('every alert has a case where it fires and one where it stays quiet', () => {
  for (const rule of RULES) {
    const fixture = ALERT_FIXTURES.find((f) => f.alert === rule.alert);
    assert.ok(fixture, `${rule.alert}: no fixture`);
    assert.ok(
      fixture.cases.some((c) => c.fires.length > 0),
      `${rule.alert}: no case where it fires`,
    );
    assert.ok(
      fixture.cases.some((c) => c.fires.length === 0),
      `${rule.alert}: no case where it stays quiet`,
    );
    assert.ok(rule.annotations.runbook.length > 0, `${rule.alert}: a runbook line`);
  }
});

test('promtool test rules: each alert fires on its fixtures, and only there', {
  skip: promtoolMissing,
}, () => {
  const result = testRules(shipped);
  assert.equal(result.code, 0, result.output);
  assert.match(result.output, /SUCCESS/);
});

test('the fixtures catch rules that never fire and rules that always fire', { skip: promtoolMissing }, () => {
  const never = testRules(rulesWith('vector(1) == 0'));
  assert.notEqual(never.code, 0, 'rules that never fire pass the fixtures');
  const always = testRules(rulesWith('vector(1)'));
  assert.notEqual(always.code, 0, 'rules that always fire pass the fixtures');
  for (const rule of RULES) {
    assert.match(never.output, new RegExp(`alertname: ${rule.alert}\\b`), `${rule.alert} firing is tested`);
    assert.match(always.output, new RegExp(`alertname: ${rule.alert}\\b`), `${rule.alert} quiet is tested`);
  }
});

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

test('the component: the ServiceMonitor scrapes the metrics Service with the metrics reader token, job as the rules expect', {
  skip: kubectl ? false : 'kubectl is not installed',
}, () => {
  const built = spawnSync('kubectl', ['kustomize', join(repositoryRoot, 'examples/overlays/prometheus')], {
    encoding: 'utf8',
  });
  assert.equal(built.status, 0, built.stderr);
  const docs = parseAllDocuments(built.stdout).map((d) => d.toJS() as any);
  const find = (kind: string) => docs.filter((d) => d.kind === kind);
  const [monitor] = find('ServiceMonitor');
  const service = find('Service').find((s) => s.metadata.name === CONTROLLER_JOB);
  assert.ok(service, `the base has the Service ${CONTROLLER_JOB}: its name is the job label the rules read`);
  assert.equal(monitor.metadata.namespace, service.metadata.namespace);
  for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels))
    assert.equal(service.metadata.labels[key], value, `the ServiceMonitor selects the Service (${key})`);
  const [endpoint] = monitor.spec.endpoints;
  assert.ok(service.spec.ports.some((p: { name: string }) => p.name === endpoint.port));
  // The token of a ServiceAccount bound to a role that may get /metrics (TokenReview + SubjectAccessReview).
  const secret = find('Secret').find((s) => s.metadata.name === endpoint.authorization.credentials.name);
  assert.equal(secret?.type, 'kubernetes.io/service-account-token');
  const account = secret.metadata.annotations['kubernetes.io/service-account.name'];
  const binding = find('ClusterRoleBinding').find((b) =>
    b.subjects.some((s: { kind: string; name: string }) => s.kind === 'ServiceAccount' && s.name === account),
  );
  const role = find('ClusterRole').find((r) => r.metadata.name === binding?.roleRef.name);
  assert.deepEqual(role?.rules, [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
  const [rule] = find('PrometheusRule');
  assert.deepEqual(rule.spec.groups, ALERT_RULE_GROUPS);
  assert.equal(rule.metadata.labels.release, 'kube-prometheus-stack', 'the overlay labels it for selection');
});
