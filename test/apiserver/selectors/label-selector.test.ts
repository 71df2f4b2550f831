import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  everything,
  labelSelectorFromObject,
  labelSelectorFromSet,
  nothing,
  parseLabelSelector,
  validateLabelSelector,
} from '../../../src/apiserver/selectors/label-selector.ts';
import { assertApiError } from '../patch/assert-api-error.ts';

const sets: Record<string, Record<string, string> | undefined> = {
  prod: { env: 'prod', tier: 'web' },
  staging: { env: 'staging', tier: 'api' },
  dev: { env: 'dev', canary: 'true' },
  numbered: { gen: '7', env: 'prod' },
  bare: {},
  none: undefined,
};

/** selector → the names of `sets` it selects. */
const matching: [string, string[]][] = [
  ['', ['prod', 'staging', 'dev', 'numbered', 'bare', 'none']],
  ['env=prod', ['prod', 'numbered']],
  ['env==prod', ['prod', 'numbered']],
  ['env!=prod', ['staging', 'dev', 'bare', 'none']],
  ['env in (prod, staging)', ['prod', 'staging', 'numbered']],
  ['env notin (prod,staging)', ['dev', 'bare', 'none']],
  ['canary', ['dev']],
  ['!canary', ['prod', 'staging', 'numbered', 'bare', 'none']],
  ['env=prod,tier=web', ['prod']],
  ['  env = prod , tier ', ['prod']],
  ['env in (prod),!tier', ['numbered']],
  ['gen>5', ['numbered']],
  ['gen<5', []],
  ['gen>6', ['numbered']],
  ['tier in (in, notin, web)', ['prod']],
  ['env in (),env notin (prod)', []],
  ['x in (foo,,baz),y,z notin ()', []],
  ['env=', []],
];

for (const [selector, expected] of matching) {
  test(`label selector ${JSON.stringify(selector)} selects ${expected.join(', ') || 'nothing'}`, () => {
    const parsed = parseLabelSelector(selector);
    const selected = Object.keys(sets).filter((name) => parsed.matches(sets[name]));
    assert.deepEqual(selected, expected);
  });
}

test('parsed selectors are sorted by key and print canonically', () => {
  const cases: [string, string][] = [
    ['tier=web,env in (b,a),!canary', '!canary,env in (a,b),tier=web'],
    ['a==1,b!=2,c,d notin (x),e>3,f<4', 'a==1,b!=2,c,d notin (x),e>3,f<4'],
    ['x in (a,a,b)', 'x in (a,b)'],
  ];
  for (const [input, printed] of cases) assert.equal(parseLabelSelector(input).toString(), printed);
});

test('requiresExactMatch reports a pinned label', () => {
  const selector = parseLabelSelector('app=web,tier in (api),zone in (a,b),env!=prod');
  assert.equal(selector.requiresExactMatch('app'), 'web');
  assert.equal(selector.requiresExactMatch('tier'), 'api');
  assert.equal(selector.requiresExactMatch('zone'), undefined);
  assert.equal(selector.requiresExactMatch('env'), undefined);
  assert.equal(selector.requiresExactMatch('missing'), undefined);
});

const KEY_RULE =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const syntaxErrors: [string, string][] = [
  ['env=prod,', "found '', expected: identifier after ','"],
  ['a,,b', "found ',', expected: identifier after ','"],
  ['=a', "found '=', expected: !, identifier, or 'end of string'"],
  ['env in prod', "unable to parse requirement: found 'prod' expected: '('"],
  ['env in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
  ['env in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
  ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
  ['a=b c', "found 'c', expected: ',' or 'end of string'"],
  ['!a=b', "found '=', expected: ',' or 'end of string'"],
  ['a=(b)', "unable to parse requirement: found '(', expected: identifier"],
  ['a@b=c', `unable to parse requirement: <nil>: Invalid value: "a@b": ${KEY_RULE}`],
  ['a=b@', `unable to parse requirement: values[0][a]: Invalid value: "b@": ${VALUE_RULE}`],
  ['gen>-1', `unable to parse requirement: values[0][gen]: Invalid value: "-1": ${VALUE_RULE}`],
  [
    'a>b',
    `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`,
  ],
  [
    'x/y/z',
    `unable to parse requirement: <nil>: Invalid value: "x/y/z": a qualified name ${KEY_RULE.slice('name part '.length)} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
  ],
  [
    `${'k'.repeat(64)}=v`,
    `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`,
  ],
  // Go's len() counts bytes: 32 two-byte characters are 64, over the limit as well as not matching.
  [
    `${'é'.repeat(32)}=v`,
    `unable to parse requirement: <nil>: Invalid value: "${'é'.repeat(32)}": name part must be no more than 63 characters; ${KEY_RULE}`,
  ],
  [
    `a=${'é'.repeat(32)}`,
    `unable to parse requirement: [values[0][a]: Invalid value: "${'é'.repeat(32)}": must be no more than 63 characters, values[0][a]: Invalid value: "${'é'.repeat(32)}": ${VALUE_RULE}]`,
  ],
  [
    'Example.com/a=b',
    `unable to parse requirement: <nil>: Invalid value: "Example.com/a": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ],
];

for (const [selector, message] of syntaxErrors) {
  test(`label selector ${JSON.stringify(selector)} is 400 BadRequest`, () => {
    assertApiError(() => parseLabelSelector(selector), 400, 'BadRequest', message);
  });
}

test('prefixed keys are valid label keys', () => {
  const selector = parseLabelSelector('nodeherd.io/pool=workers,kubernetes.io/os in (linux)');
  assert.ok(selector.matches({ 'nodeherd.io/pool': 'workers', 'kubernetes.io/os': 'linux' }));
});

test('selectors from sets and the everything/nothing selectors', () => {
  const fromSet = labelSelectorFromSet({ role: 'worker', zone: 'a' });
  assert.ok(fromSet.matches({ role: 'worker', zone: 'a', extra: 'x' }));
  assert.ok(!fromSet.matches({ role: 'worker' }));
  assert.ok(labelSelectorFromSet(undefined).isEverything());
  assert.ok(everything().matches(undefined) && everything().isEverything());
  assert.ok(!nothing().matches({}) && nothing().isNothing() && !nothing().isEverything());
});

test('metav1.LabelSelector objects: null selects nothing, {} selects everything', () => {
  assert.ok(labelSelectorFromObject(null).isNothing());
  assert.ok(!labelSelectorFromObject(undefined).matches({ a: 'b' }));
  assert.ok(labelSelectorFromObject({}).isEverything());
  assert.ok(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }).matches(undefined));
});

test('metav1.LabelSelector objects: matchLabels and every matchExpressions operator', () => {
  const selector = labelSelectorFromObject({
    matchLabels: { app: 'agent' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['node', 'edge'] },
      { key: 'env', operator: 'NotIn', values: ['dev'] },
      { key: 'nodeherd.io/managed', operator: 'Exists' },
      { key: 'legacy', operator: 'DoesNotExist' },
    ],
  });
  const cases: [Record<string, string>, boolean][] = [
    [{ app: 'agent', tier: 'edge', 'nodeherd.io/managed': '' }, true],
    [{ app: 'agent', tier: 'edge', env: 'prod', 'nodeherd.io/managed': 'yes' }, true],
    [{ app: 'agent', tier: 'edge', env: 'dev', 'nodeherd.io/managed': '' }, false],
    [{ app: 'agent', tier: 'cloud', 'nodeherd.io/managed': '' }, false],
    [{ app: 'agent', tier: 'edge' }, false],
    [{ app: 'agent', tier: 'edge', 'nodeherd.io/managed': '', legacy: 'x' }, false],
    [{ app: 'other', tier: 'edge', 'nodeherd.io/managed': '' }, false],
  ];
  for (const [labels, expected] of cases)
    assert.equal(selector.matches(labels), expected, JSON.stringify(labels));
  assert.equal(
    selector.toString(),
    'app=agent,env notin (dev),!legacy,nodeherd.io/managed,tier in (edge,node)',
  );
});

test('metav1.LabelSelector validation names each offending field', () => {
  const causes = validateLabelSelector(
    {
      matchLabels: { 'bad key': 'v', ok: 'bad value!' },
      matchExpressions: [
        { key: 'a', operator: 'In', values: [] },
        { key: 'b', operator: 'Exists', values: ['x'] },
        { key: 'c', operator: 'Equals', values: ['x'] },
        { operator: 'DoesNotExist' },
      ],
    },
    'spec.selector',
  );
  assert.deepEqual(
    causes.map((c) => [c.type, c.field, c.message.split(':')[0]]),
    [
      ['FieldValueInvalid', 'spec.selector.matchLabels', 'Invalid value'],
      ['FieldValueInvalid', 'spec.selector.matchLabels', 'Invalid value'],
      ['FieldValueRequired', 'spec.selector.matchExpressions[0].values', 'Required value'],
      ['FieldValueForbidden', 'spec.selector.matchExpressions[1].values', 'Forbidden'],
      ['FieldValueInvalid', 'spec.selector.matchExpressions[2].operator', 'Invalid value'],
      ['FieldValueInvalid', 'spec.selector.matchExpressions[3].key', 'Invalid value'],
      ['FieldValueInvalid', 'spec.selector.matchExpressions[3].key', 'Invalid value'],
    ],
  );
  assert.equal(causes[0]!.message, `Invalid value: "bad key": ${KEY_RULE}`);
  assert.equal(causes[1]!.message, `Invalid value: "bad value!": ${VALUE_RULE}`);
  assert.equal(causes[2]!.message, "Required value: must be specified when `operator` is 'In' or 'NotIn'");
  assert.equal(
    causes[3]!.message,
    "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
  );
  assert.equal(causes[4]!.message, 'Invalid value: "Equals": not a valid selector operator');
  assert.equal(causes[5]!.message, 'Invalid value: "": name part must be non-empty');
  assert.deepEqual(validateLabelSelector({ matchLabels: { a: 'b' } }, 'spec.selector'), []);
  assert.deepEqual(validateLabelSelector(null, 'spec.selector'), []);
});

test('an invalid metav1.LabelSelector object is 422 Invalid carrying the causes', () => {
  const err = assertApiError(
    () =>
      labelSelectorFromObject(
        { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
        'spec.selector',
      ),
    422,
    'Invalid',
    "the label selector is invalid: spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  );
  assert.equal(err.details?.causes?.[0]?.field, 'spec.selector.matchExpressions[0].values');
});
