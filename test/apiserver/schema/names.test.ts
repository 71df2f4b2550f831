import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  annotationsSize,
  generateName,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  MAX_GENERATED_NAME_LENGTH,
  nameIsDNSSubdomain,
  TOTAL_ANNOTATION_SIZE_LIMIT,
  validateAnnotations,
  validateLabels,
} from '../../../src/apiserver/schema/names.ts';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Msg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

test('DNS-1123 subdomains: kube wording, 253 characters', () => {
  const cases: [string, string[]][] = [
    ['worker-1.example.com', []],
    ['a', []],
    ['Worker', [subdomainMsg]],
    ['-worker', [subdomainMsg]],
    ['worker_1', [subdomainMsg]],
    ['', [subdomainMsg]],
    [`${'a'.repeat(250)}.com`, ['must be no more than 253 characters']],
  ];
  for (const [name, want] of cases) assert.deepEqual(isDNS1123Subdomain(name), want, name);
});

test('DNS-1123 labels: dots get their own message, 63 characters', () => {
  const cases: [string, string[]][] = [
    ['kube-system', []],
    ['123-abc', []],
    ['a.b', ['must not contain dots']],
    ['A', [labelMsg]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
  ];
  for (const [name, want] of cases) assert.deepEqual(isDNS1123Label(name), want, name);
});

test('DNS-1035 labels must start with a letter', () => {
  assert.deepEqual(isDNS1035Label('v1alpha1'), []);
  assert.deepEqual(isDNS1035Label('1v'), [dns1035Msg]);
});

test('qualified names (label keys) check prefix and name parts', () => {
  const nameMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const cases: [string, string[]][] = [
    ['app', []],
    ['nodeherd.io/desired-revision', []],
    ['app.kubernetes.io/name', []],
    ['/name', ['prefix part must be non-empty']],
    ['Example.com/name', [`prefix part ${subdomainMsg}`]],
    ['nodeherd.io/', ['name part must be non-empty', nameMsg]],
    ['a/b/c', [isQualifiedName('a/b/c')[0]!]],
    ['-bad', [nameMsg]],
    ['x'.repeat(64), ['name part must be no more than 63 characters']],
  ];
  for (const [key, want] of cases) assert.deepEqual(isQualifiedName(key), want, key);
  assert.match(
    isQualifiedName('a/b/c')[0]!,
    /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/,
  );
});

test('label values may be empty but not start with punctuation', () => {
  assert.deepEqual(isValidLabelValue(''), []);
  assert.deepEqual(isValidLabelValue('v1.2_3-x'), []);
  assert.equal(isValidLabelValue('-x').length, 1);
  assert.deepEqual(isValidLabelValue('x'.repeat(64)), ['must be no more than 63 characters']);
});

test('path segment names refuse ".", ".." and "/" or "%"', () => {
  assert.deepEqual(isValidPathSegmentName('.'), ["may not be '.'"]);
  assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(isValidPathSegmentName('Any_Thing'), []);
});

test('generateName prefixes may end in a dash', () => {
  assert.deepEqual(nameIsDNSSubdomain('worker-', true), []);
  assert.deepEqual(nameIsDNSSubdomain('worker-', false), [subdomainMsg]);
});

test('generateName appends five characters from kube alphabet and caps the base at 58', () => {
  let n = 0;
  const sequence = (max: number) => n++ % max;
  assert.equal(generateName('pool-', sequence), 'pool-bcdfg');
  const long = generateName('x'.repeat(80));
  assert.equal(long.length, MAX_GENERATED_NAME_LENGTH + 5);
  assert.match(long.slice(MAX_GENERATED_NAME_LENGTH), /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

test('labels are validated on the map path; values and keys both', () => {
  assert.deepEqual(validateLabels({ app: 'web', 'nodeherd.io/pool': 'edge' }, 'metadata.labels'), []);
  const causes = validateLabels({ 'bad key!': 'ok', good: '-bad' }, 'metadata.labels');
  assert.equal(causes.length, 2);
  assert.equal(causes[0]!.field, 'metadata.labels');
  assert.match(causes[0]!.message, /^Invalid value: "bad key!": name part must consist/);
  assert.match(causes[1]!.message, /^Invalid value: "-bad": a valid label must be an empty string/);
});

test('annotations: keys are case-insensitive qualified names, total size at most 256 KiB', () => {
  assert.deepEqual(validateAnnotations({ 'Example.com/Note': 'x' }, 'metadata.annotations'), []);
  const key = 'nodeherd.io/blob';
  const big = { [key]: 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT - key.length) };
  assert.equal(annotationsSize(big), TOTAL_ANNOTATION_SIZE_LIMIT);
  assert.deepEqual(validateAnnotations(big, 'metadata.annotations'), []);
  big[key] += 'y';
  assert.deepEqual(validateAnnotations(big, 'metadata.annotations'), [
    {
      type: 'FieldValueTooLong',
      message: 'Too long: may not be more than 262144 bytes',
      field: 'metadata.annotations',
    },
  ]);
});
