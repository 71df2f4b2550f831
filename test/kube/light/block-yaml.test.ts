import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse, stringify } from 'yaml';
import { parseBlockYaml } from '../../../src/kube/light/block-yaml.ts';

// Whatever the light reader accepts, it must read exactly as the `yaml` package does.
function assertSameAsYaml(text: string): void {
  const light = parseBlockYaml(text);
  assert.notEqual(light, undefined, `expected the subset to accept:\n${text}`);
  assert.deepEqual(light, parse(text), text);
}

test('kubectl-style kubeconfig: sequences at the key indentation, empty flow maps, comments', () => {
  assertSameAsYaml(`apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTi==
    server: https://10.0.0.1:6443   # the API server
  name: prod
contexts:
- context:
    cluster: prod
    namespace: kube-system
    user: system:node:n1
  name: system:node:n1@prod
current-context: system:node:n1@prod
kind: Config
preferences: {}
users:
- name: system:node:n1
  user:
    token: abc.def-ghi_jkl

# trailing comment
`);
});

test('nested sequences, quoted keys and values, escapes, empty values and CRLF', () => {
  assertSameAsYaml(
    '---\r\na:\r\n  - - x\r\n    - "y: z"\r\n  -\r\n    k: v\r\n  - \'it\'\'s\'\r\n"quoted key": "tab\\there \\u00e9 \\x41 \\\\ \\""\r\nempty:\r\nlist: []\r\n',
  );
});

test('plain scalars resolve like the YAML 1.2 core schema', () => {
  const lines = [
    'n1: ~',
    'n2: null',
    'n3: NULL',
    'b1: true',
    'b2: False',
    'b3: yes',
    'i1: 42',
    'i2: -7',
    'i3: 0o17',
    'i4: 0x1F',
    'i5: 007',
    'f1: 1.5',
    'f2: 1e3',
    'f3: -.inf',
    'f5: .5',
    's1: 1.2.3',
    's2: a:b',
    's3: -dash',
    's4: ünïcødé 🚀',
    's5: with # inside',
    's6: a#b',
    's7: trailing spaces   ',
    's8: 0x',
    's9: +12',
  ];
  assertSameAsYaml(`${lines.join('\n')}\n`);
  const nan = parseBlockYaml('x: .nan\n') as { x: number };
  assert.ok(Number.isNaN(nan.x));
});

test('what yaml.stringify writes for awkward strings is read back identically', () => {
  const awkward = [
    'true',
    '123',
    'null',
    '~',
    'a: b',
    '#hash',
    "it's",
    'say "hi"',
    ' leading space',
    'trailing space ',
    '-dash',
    '- dash space',
    ':colon',
    '@at',
    '`tick',
    '[bracket',
    '{brace',
    '*star',
    '&amp',
    '!bang',
    '%pct',
    '|pipe',
    '>gt',
    '?q',
    '0x1F',
    '1e3',
    '.inf',
    'ünï 🚀',
    'a #b',
    'tab\there',
    'back\\slash',
    '',
    '  ',
    'x'.repeat(3000),
  ];
  let accepted = 0;
  for (const value of awkward) {
    const doc = { clusters: [{ name: value, cluster: { server: value } }], [value || 'k']: value };
    const text = stringify(doc, { lineWidth: 0 });
    const light = parseBlockYaml(text);
    if (light === undefined) continue; // outside the subset: the caller falls back to `yaml`
    accepted++;
    assert.deepEqual(light, parse(text), text);
  }
  assert.ok(accepted >= awkward.length - 3, `accepted only ${accepted} of ${awkward.length}`);
});

test('anything beyond the subset is refused, never guessed', () => {
  const outside = [
    'a: &anchor 1\nb: *anchor\n',
    'a: !!str 1\n',
    'a: |\n  block\n',
    'a: >\n  folded\n',
    'a: {b: 1}\n',
    'a: [1, 2]\n',
    'a: plain\n  continued\n',
    'a: "open\n  quote"\n',
    '? complex\n: key\n',
    'a: 1\n---\nb: 2\n',
    '%YAML 1.2\n---\na: 1\n',
    'a: 1\na: 2\n',
    'a:\n\tb: 1\n',
    'a: b: c\n',
    'a: "x" y\n',
  ];
  for (const text of outside) assert.equal(parseBlockYaml(text), undefined, text);
});

test('empty documents and a bare scalar', () => {
  assert.equal(parseBlockYaml(''), null);
  assert.equal(parseBlockYaml('# only a comment\n'), null);
  assert.equal(parseBlockYaml('hello\n'), 'hello');
  // A "__proto__" key becomes an own property, never the prototype.
  const tricky = parseBlockYaml('__proto__:\n  polluted: true\n') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(tricky), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(Object.keys(tricky), ['__proto__']);
});

// A seeded pseudo-random source so a failure reproduces.
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

test('random documents written by yaml.stringify: accepted ones read exactly as yaml reads them', () => {
  const random = seededRandom(1);
  const alphabet = [...'abZ019 :#-?\'"\\\t{}[],&*!|>%@`.~ex+_/\n\r', 'é', '🚀'];
  const text = () =>
    Array.from(
      { length: Math.floor(random() * 8) },
      () => alphabet[Math.floor(random() * alphabet.length)],
    ).join('');
  const value = (depth: number): unknown => {
    const r = random();
    if (depth > 3 || r < 0.5) {
      const t = random();
      return t < 0.7 ? text() : t < 0.8 ? Math.floor(random() * 1000) : t < 0.9 ? random() < 0.5 : null;
    }
    const size = Math.floor(random() * 4);
    if (r < 0.75)
      return Object.fromEntries(Array.from({ length: size }, () => [text() || 'k', value(depth + 1)]));
    return Array.from({ length: size }, () => value(depth + 1));
  };
  let accepted = 0;
  for (let i = 0; i < 3000; i++) {
    const doc = value(0);
    for (const indentSeq of [true, false]) {
      const written = stringify(doc, { lineWidth: 0, indentSeq });
      const light = parseBlockYaml(written);
      if (light === undefined) continue;
      accepted++;
      assert.deepEqual(light, parse(written), written);
    }
  }
  assert.ok(accepted > 5000, `accepted ${accepted}`);
});

test('randomly damaged kubeconfigs: never a different reading, never accepted where yaml fails', () => {
  const random = seededRandom(Number(process.env.FUZZ_SEED ?? 7));
  const base = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTi==
    server: https://10.0.0.1:6443   # comment
  name: prod
contexts:
  - context:
      cluster: prod
      user: "system:node:n1"
    name: 'ctx'
current-context: ctx
preferences: {}
users:
- name: system:node:n1
  user:
    token: abc.def-ghi_jkl
`;
  const inserts = [
    ' ',
    '  ',
    '-',
    ':',
    '#',
    '"',
    "'",
    '\n',
    '- ',
    ': ',
    '\t',
    '{',
    '[',
    '&a ',
    '*a',
    '!',
    '|',
    '>',
    '?',
    '---\n',
    '\\',
    'x',
  ];
  let accepted = 0;
  for (let i = 0; i < 10_000; i++) {
    let damaged = base;
    for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
      const at = Math.floor(random() * damaged.length);
      const r = random();
      if (r < 0.4) {
        damaged = damaged.slice(0, at) + inserts[Math.floor(random() * inserts.length)] + damaged.slice(at);
      } else if (r < 0.8) {
        damaged = damaged.slice(0, at) + damaged.slice(at + 1 + Math.floor(random() * 3));
      } else {
        const lines = damaged.split('\n');
        const k = Math.floor(random() * lines.length);
        lines[k] = ' '.repeat(Math.floor(random() * 3)) + lines[k]!.trimStart();
        damaged = lines.join('\n');
      }
    }
    const light = parseBlockYaml(damaged);
    if (light === undefined) continue;
    accepted++;
    assert.deepEqual(light, parse(damaged), damaged);
  }
  assert.ok(accepted > 3000, `accepted ${accepted}`);
});
