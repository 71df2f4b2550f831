import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  exactNameFromFieldSelector,
  fieldGetter,
  parseFieldSelector,
} from '../../../src/apiserver/selectors/field-selector.ts';
import { assertApiError } from '../patch/assert-api-error.ts';

// Per-kind getters, as a ResourceDefinition's selectableFields supplies them.
const podFields = {
  'spec.nodeName': (pod: any) => pod.spec?.nodeName,
  'status.phase': (pod: any) => pod.status?.phase,
};
const eventFields = {
  'involvedObject.kind': (event: any) => event.involvedObject?.kind,
  'involvedObject.name': (event: any) => event.involvedObject?.name,
  reason: (event: any) => event.reason,
};

const pods: Record<string, unknown> = {
  'web-1': {
    metadata: { name: 'web-1', namespace: 'default' },
    spec: { nodeName: 'node-1' },
    status: { phase: 'Running' },
  },
  'web-2': {
    metadata: { name: 'web-2', namespace: 'default' },
    spec: { nodeName: 'node-2' },
    status: { phase: 'Running' },
  },
  'job-1': {
    metadata: { name: 'job-1', namespace: 'batch' },
    spec: { nodeName: 'node-1' },
    status: { phase: 'Succeeded' },
  },
  pending: { metadata: { name: 'pending', namespace: 'default' }, spec: {}, status: { phase: 'Pending' } },
};

const podSelections: [string, string[]][] = [
  ['', ['web-1', 'web-2', 'job-1', 'pending']],
  ['spec.nodeName=node-1', ['web-1', 'job-1']],
  ['spec.nodeName==node-1', ['web-1', 'job-1']],
  ['spec.nodeName=node-1,status.phase!=Succeeded', ['web-1']],
  ['spec.nodeName=', ['pending']],
  ['spec.nodeName!=', ['web-1', 'web-2', 'job-1']],
  ['metadata.name=web-2', ['web-2']],
  ['metadata.namespace=default,metadata.name!=web-1', ['web-2', 'pending']],
  ['status.phase=Running,status.phase=Succeeded', []],
];

for (const [selector, expected] of podSelections) {
  test(`field selector ${JSON.stringify(selector)} on pods selects ${expected.join(', ') || 'nothing'}`, () => {
    const parsed = parseFieldSelector(selector, Object.keys(podFields));
    const getField = fieldGetter(podFields);
    assert.deepEqual(
      Object.keys(pods).filter((name) => parsed.matches(pods[name], getField)),
      expected,
    );
  });
}

test('events select on involvedObject.* (kubectl describe node)', () => {
  const events = [
    {
      metadata: { name: 'e1' },
      involvedObject: { kind: 'Node', name: 'node-1' },
      reason: 'NodeConfigApplied',
    },
    { metadata: { name: 'e2' }, involvedObject: { kind: 'Pod', name: 'node-1' }, reason: 'Started' },
    {
      metadata: { name: 'e3' },
      involvedObject: { kind: 'Node', name: 'node-2' },
      reason: 'NodeConfigApplied',
    },
  ];
  const selector = parseFieldSelector(
    'involvedObject.kind=Node,involvedObject.name=node-1',
    Object.keys(eventFields),
  );
  assert.deepEqual(
    events.filter((e) => selector.matches(e, fieldGetter(eventFields))).map((e) => e.metadata.name),
    ['e1'],
  );
});

test('backslash escapes a comma, an equals sign or a backslash in a value', () => {
  const getField = fieldGetter({ reason: (o: any) => o.reason });
  const selector = parseFieldSelector('reason=a\\,b\\=c\\\\d', ['reason']);
  assert.deepEqual(selector.requirements, [{ field: 'reason', operator: '=', value: 'a,b=c\\d' }]);
  assert.ok(selector.matches({ reason: 'a,b=c\\d' }, getField));
  assert.equal(selector.toString(), 'reason=a\\,b\\=c\\\\d');
});

test('exactNameFromFieldSelector finds metadata.name=<name> (used to index watches by name)', () => {
  const cases: [string, string | undefined][] = [
    ['metadata.name=node-1', 'node-1'],
    ['metadata.name==node-1', 'node-1'],
    ['metadata.namespace=default,metadata.name=web', 'web'],
    ['metadata.name!=node-1', undefined],
    ['metadata.namespace=default', undefined],
    ['', undefined],
  ];
  for (const [selector, name] of cases) {
    assert.equal(exactNameFromFieldSelector(parseFieldSelector(selector)), name, selector);
  }
});

test('an empty selector selects everything; requirements are kept in sorted order', () => {
  assert.ok(parseFieldSelector('').isEverything());
  assert.ok(!parseFieldSelector('metadata.name=a').isEverything());
  assert.deepEqual(
    parseFieldSelector('metadata.namespace=b,metadata.name=a').requirements.map((r) => r.field),
    ['metadata.name', 'metadata.namespace'],
  );
});

const errors: [string, readonly string[], string][] = [
  [
    'spec.foo=bar',
    Object.keys(podFields),
    '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace", "spec.nodeName", "status.phase"',
  ],
  [
    'spec.csi.driver=x',
    [],
    '"spec.csi.driver" is not a known field selector: only "metadata.name", "metadata.namespace"',
  ],
  [
    ' metadata.name=a',
    [],
    '" metadata.name" is not a known field selector: only "metadata.name", "metadata.namespace"',
  ],
  ['metadata.name', [], "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
  ['metadata.name=a,foo', [], "invalid selector: 'metadata.name=a,foo'; can't understand 'foo'"],
  ['metadata.name=a=b', [], "invalid field selector: unescaped character in value: '='"],
  ['metadata.name=a\\x', [], 'invalid field selector: invalid escape sequence: \\x'],
  ['metadata.name=a\\', [], 'invalid field selector: invalid escape sequence: \\'],
];

for (const [selector, fields, message] of errors) {
  test(`field selector ${JSON.stringify(selector)} is 400 BadRequest`, () => {
    assertApiError(() => parseFieldSelector(selector, fields), 400, 'BadRequest', message);
  });
}
