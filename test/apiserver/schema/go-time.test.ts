// metav1.Time / MicroTime decoding against Go's time.Parse (layouts RFC3339 and RFC3339Micro, as
// apimachinery's Time.UnmarshalJSON and MicroTime.UnmarshalJSON call it) and their UTC encoding.
// Expected messages are Go's ParseError texts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatMicroTime,
  formatTime,
  GoTimeParseError,
  parseGoTime,
} from '../../../src/apiserver/schema/go-time.ts';

const ok: [input: string, time: string, micro: string | undefined][] = [
  ['2026-11-25T12:00:00Z', '2026-11-25T12:00:00Z', undefined],
  ['2026-11-25T12:00:00.123456789Z', '2026-11-25T12:00:00Z', undefined],
  ['2026-11-25T12:00:00,5Z', '2026-11-25T12:00:00Z', undefined],
  ['2026-11-25T14:30:00+02:30', '2026-11-25T12:00:00Z', undefined],
  ['2026-11-25T00:30:00-01:00', '2026-11-25T01:30:00Z', undefined],
  ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59Z', undefined],
  ['2026-11-25T12:00:00.123456Z', '2026-11-25T12:00:00Z', '2026-11-25T12:00:00.123456Z'],
  ['2026-11-25T13:00:00.100000+01:00', '2026-11-25T12:00:00Z', '2026-11-25T12:00:00.100000Z'],
];

for (const [input, time, micro] of ok) {
  test(`Time ${input} → ${time}`, () => {
    assert.equal(formatTime(parseGoTime(input, false)), time);
  });
  if (micro !== undefined) {
    test(`MicroTime ${input} → ${micro}`, () => {
      assert.equal(formatMicroTime(parseGoTime(input, true)), micro);
    });
  }
}

test('a Time with a fraction keeps it for MicroTime output when read as Time then shown as micro', () => {
  assert.equal(formatMicroTime(parseGoTime('2026-11-25T12:00:00.5Z', false)), '2026-11-25T12:00:00.500000Z');
});

const T = '"2006-01-02T15:04:05Z07:00"';
const M = '"2006-01-02T15:04:05.000000Z07:00"';
const bad: [input: string, micro: boolean, message: string][] = [
  ['not-a-time', false, `parsing time "not-a-time" as ${T}: cannot parse "not-a-time" as "2006"`],
  ['not-a-time', true, `parsing time "not-a-time" as ${M}: cannot parse "not-a-time" as "2006"`],
  ['2026-11-25', false, `parsing time "2026-11-25" as ${T}: cannot parse "" as "T"`],
  [
    '2026-11-25 12:00:00Z',
    false,
    `parsing time "2026-11-25 12:00:00Z" as ${T}: cannot parse " 12:00:00Z" as "T"`,
  ],
  ['2026-11-25T12:00:00', false, `parsing time "2026-11-25T12:00:00" as ${T}: cannot parse "" as "Z07:00"`],
  [
    '2026-11-25T12:00:00+0100',
    false,
    `parsing time "2026-11-25T12:00:00+0100" as ${T}: cannot parse "+0100" as "Z07:00"`,
  ],
  ['2026-13-01T00:00:00Z', false, 'parsing time "2026-13-01T00:00:00Z": month out of range'],
  ['2026-02-30T00:00:00Z', false, 'parsing time "2026-02-30T00:00:00Z": day out of range'],
  ['2026-11-25T24:00:00Z', false, 'parsing time "2026-11-25T24:00:00Z": hour out of range'],
  ['2026-11-25T12:60:00Z', false, 'parsing time "2026-11-25T12:60:00Z": minute out of range'],
  ['2026-11-25T12:00:60Z', false, 'parsing time "2026-11-25T12:00:60Z": second out of range'],
  ['2026-11-25T12:00:00Zjunk', false, 'parsing time "2026-11-25T12:00:00Zjunk": extra text: "junk"'],
  [
    '2026-11-25T12:00:00Z',
    true,
    `parsing time "2026-11-25T12:00:00Z" as ${M}: cannot parse "Z" as ".000000"`,
  ],
  [
    '2026-11-25T12:00:00.123Z',
    true,
    `parsing time "2026-11-25T12:00:00.123Z" as ${M}: cannot parse ".123Z" as ".000000"`,
  ],
  [
    '26-11-25T12:00:00Z',
    false,
    `parsing time "26-11-25T12:00:00Z" as ${T}: cannot parse "26-11-25T12:00:00Z" as "2006"`,
  ],
  [
    '2026-1-25T12:00:00Z',
    false,
    `parsing time "2026-1-25T12:00:00Z" as ${T}: cannot parse "1-25T12:00:00Z" as "01"`,
  ],
  ['', false, `parsing time "" as ${T}: cannot parse "" as "2006"`],
  [
    '2026-11-25t12:00:00z',
    false,
    `parsing time "2026-11-25t12:00:00z" as ${T}: cannot parse "t12:00:00z" as "T"`,
  ],
];

for (const [input, micro, message] of bad) {
  test(`${micro ? 'MicroTime' : 'Time'} "${input}" is refused with Go's message`, () => {
    assert.throws(
      () => parseGoTime(input, micro),
      (err: unknown) => err instanceof GoTimeParseError && err.message === message,
      message,
    );
  });
}
