import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { maintenanceWindowStatus, wallClock } from '../../../src/controller/rollout/maintenance-windows.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('maintenance windows', () => {
  const table: {
    what: string;
    windows: { schedule: string; duration: string; timeZone?: string }[];
    now: string;
    open: boolean;
    closesAt?: string;
    opensAt?: string;
  }[] = [
    { what: 'no windows: always open', windows: [], now: '2030-01-07T12:00:00Z', open: true },
    {
      what: 'inside a daily window',
      windows: [{ schedule: '0 2 * * *', duration: '4h' }],
      now: '2030-01-07T03:30:00Z',
      open: true,
      closesAt: '2030-01-07T06:00:00.000Z',
    },
    {
      what: 'the closing minute is outside',
      windows: [{ schedule: '0 2 * * *', duration: '4h' }],
      now: '2030-01-07T06:00:00Z',
      open: false,
      opensAt: '2030-01-08T02:00:00.000Z',
    },
    {
      what: 'before the window: the next opening',
      windows: [{ schedule: '30 22 * * 1-5', duration: '90m' }],
      now: '2030-01-05T12:00:00Z', // a Saturday
      open: false,
      opensAt: '2030-01-07T22:30:00.000Z',
    },
    {
      what: 'a window that spans midnight',
      windows: [{ schedule: '30 22 * * 1-5', duration: '90m' }],
      now: '2030-01-08T23:45:00Z',
      open: true,
      closesAt: '2030-01-09T00:00:00.000Z',
    },
    {
      what: 'read in its time zone (Berlin is UTC+1 in January)',
      windows: [{ schedule: '0 3 * * *', duration: '1h', timeZone: 'Europe/Berlin' }],
      now: '2030-01-07T02:30:00Z',
      open: true,
      closesAt: '2030-01-07T03:00:00.000Z',
    },
    {
      what: 'and in summer time (UTC+2)',
      windows: [{ schedule: '0 3 * * *', duration: '1h', timeZone: 'Europe/Berlin' }],
      now: '2030-07-07T01:30:00Z',
      open: true,
      closesAt: '2030-07-07T02:00:00.000Z',
    },
    {
      what: 'of several windows, the one open counts',
      windows: [
        { schedule: '0 1 * * *', duration: '1h' },
        { schedule: '0 13 * * *', duration: '2h' },
      ],
      now: '2030-01-07T14:00:00Z',
      open: true,
      closesAt: '2030-01-07T15:00:00.000Z',
    },
    {
      what: 'of several closed windows, the next to open',
      windows: [
        { schedule: '0 1 * * *', duration: '1h' },
        { schedule: '0 13 * * *', duration: '2h' },
      ],
      now: '2030-01-07T16:00:00Z',
      open: false,
      opensAt: '2030-01-08T01:00:00.000Z',
    },
    {
      what: 'a weekly window lasting days',
      windows: [{ schedule: '@weekly', duration: '48h' }],
      now: '2030-01-07T20:00:00Z', // Monday; opened Sunday 00:00
      open: true,
      closesAt: '2030-01-08T00:00:00.000Z',
    },
  ];
  for (const row of table) {
    test(row.what, () => {
      const status = maintenanceWindowStatus(row.windows, at(row.now));
      assert.equal(status.open, row.open);
      assert.equal(iso(status.closesAt), row.closesAt);
      assert.equal(iso(status.opensAt), row.opensAt);
      assert.equal(status.error, undefined);
    });
  }

  test('a window that cannot be read keeps the pool closed, and says why', () => {
    for (const [window, why] of [
      [{ schedule: '0 25 * * *', duration: '1h' }, /hour: 25 is outside 0-23/],
      [{ schedule: '0 2 * * *', duration: '30s' }, /at least 1m/],
      [{ schedule: '0 2 * * *', duration: '1h', timeZone: 'Nowhere/Atlantis' }, /Nowhere\/Atlantis/],
    ] as const) {
      const status = maintenanceWindowStatus([window], at('2030-01-07T02:30:00Z'));
      assert.equal(status.open, false);
      assert.match(status.error ?? '', why);
    }
  });

  test('wall clock across a DST change', () => {
    // 2030-03-31 01:00 UTC: Berlin jumps from 02:00 CET to 03:00 CEST.
    assert.deepEqual(wallClock('Europe/Berlin', at('2030-03-31T00:59:00Z')), {
      minute: 59,
      hour: 1,
      dayOfMonth: 31,
      month: 3,
      dayOfWeek: 0,
    });
    assert.deepEqual(wallClock('Europe/Berlin', at('2030-03-31T01:00:00Z')), {
      minute: 0,
      hour: 3,
      dayOfMonth: 31,
      month: 3,
      dayOfWeek: 0,
    });
    assert.equal(wallClock('Asia/Kolkata', at('2030-01-07T00:00:00Z')).minute, 30);
  });
});
