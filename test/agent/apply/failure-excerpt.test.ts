// The failure excerpt (issue 36): the failing program's cause line picked out of systemd's own
// lines, every line holding a Secret-sourced file's value masked, and the whole bounded in size.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildExcerpt,
  EXCERPT_LINE_BYTES,
  EXCERPT_MAX_BYTES,
  journalCause,
  REDACTED_LINE,
  redactText,
  secretNeedles,
} from '../../../src/agent/apply/failure-excerpt.ts';

const KUBELET_JOURNAL = [
  'I1129 06:00:00.000000    1234 server.go:487] "Kubelet version" kubeletVersion="v1.31.0"',
  'E1129 06:00:00.100000    1234 run.go:72] "command failed" err="failed to validate kubelet configuration, error: invalid configuration: maxPods (--max-pods) -1 must not be a negative number"',
  'kubelet.service: Main process exited, code=exited, status=1/FAILURE',
  "kubelet.service: Failed with result 'exit-code'.",
];

describe('failure excerpt', () => {
  it("picks the program's last own line as the cause, not systemd's", () => {
    assert.match(
      journalCause('kubelet.service', KUBELET_JOURNAL) ?? '',
      /maxPods \(--max-pods\) -1 must not/,
    );
    const exec = [
      'app.service: Failed to locate executable /usr/bin/nope: No such file or directory',
      'app.service: Failed at step EXEC spawning /usr/bin/nope: No such file or directory',
      'app.service: Main process exited, code=exited, status=203/EXEC',
      "app.service: Failed with result 'exit-code'.",
    ];
    assert.match(journalCause('app.service', exec) ?? '', /Failed at step EXEC spawning \/usr\/bin\/nope/);
    assert.equal(journalCause('app.service', []), undefined);
  });

  it('masks every line that holds a line of a Secret value, in the excerpt, the cause and the reason', () => {
    const needles = secretNeedles([Buffer.from('user=admin\npassword=s3cr3t-Value\n}\n')]);
    assert.deepEqual(needles.sort(), ['password=s3cr3t-Value', 'user=admin'], 'short lines are not needles');
    const excerpt = buildExcerpt(
      { unit: 'app.service' },
      ['connecting as user=admin', 'login refused for password=s3cr3t-Value', 'ok line }'],
      needles,
    );
    assert.doesNotMatch(excerpt.text, /s3cr3t|user=admin/);
    assert.equal(excerpt.text.split('\n').filter((l) => l.includes(REDACTED_LINE)).length, 2);
    assert.match(excerpt.text, /ok line \}/, 'a one-character line of the value masks nothing');
    assert.equal(excerpt.cause, 'ok line }');
    const masked = buildExcerpt({ unit: 'app.service' }, ['fatal: password=s3cr3t-Value'], needles);
    assert.equal(masked.cause, REDACTED_LINE);
    assert.equal(
      redactText('start-unit: x\nsaw password=s3cr3t-Value', needles),
      `start-unit: x\n${REDACTED_LINE}`,
    );
  });

  it('bounds the excerpt: long lines cut, the oldest lines dropped first', () => {
    const journal = Array.from({ length: 20 }, (_, i) => `line ${i} ${'x'.repeat(1000)}`);
    const excerpt = buildExcerpt(
      { unit: 'big.service', output: 'probe said no\n'.repeat(40), outputTitle: 'probe output' },
      journal,
      [],
    );
    assert.ok(
      Buffer.byteLength(excerpt.text) <= EXCERPT_MAX_BYTES,
      `${Buffer.byteLength(excerpt.text)} bytes`,
    );
    for (const line of excerpt.text.split('\n')) assert.ok(Buffer.byteLength(line) <= EXCERPT_LINE_BYTES + 2);
    assert.match(excerpt.text, /line 19 x/, 'the newest journal line stays');
    assert.doesNotMatch(excerpt.text, /line 0 x/, 'the oldest goes');
    assert.match(excerpt.text, /earlier lines cut/);
    assert.equal(excerpt.cause, 'probe said no', "a probe's own output is the cause");
  });
});
