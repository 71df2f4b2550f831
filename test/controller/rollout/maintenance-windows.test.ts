import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  formatWallClock,
  maintenanceWindowStatus,
  wallClock,
} from '../../../src/controller/rollout/maintenance-windows.ts';

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

  // Any period, any zone, across daylight saving time: each row gives the state at `now` and the next
  // opening (open or not), computed by croner's field-by-field search rather than a scan.
  const periods: {
    what: string;
    window: { schedule: string; duration: string; timeZone?: string };
    now: string;
    open: boolean;
    closesAt?: string;
    next: string;
  }[] = [
    {
      what: 'monthly (0 2 1 * *), two weeks before it opens',
      window: { schedule: '0 2 1 * *', duration: '4h' },
      now: '2030-01-15T12:00:00Z',
      open: false,
      next: '2030-02-01T02:00:00.000Z',
    },
    {
      what: 'monthly, inside: the next opening is a month later',
      window: { schedule: '0 2 1 * *', duration: '4h' },
      now: '2030-02-01T03:00:00Z',
      open: true,
      closesAt: '2030-02-01T06:00:00.000Z',
      next: '2030-03-01T02:00:00.000Z',
    },
    {
      what: 'yearly (@yearly) in Berlin: midnight CET is 23:00 UTC the day before',
      window: { schedule: '@yearly', duration: '6h', timeZone: 'Europe/Berlin' },
      now: '2030-06-01T00:00:00Z',
      open: false,
      next: '2030-12-31T23:00:00.000Z',
    },
    {
      what: 'on 29 February: the next leap year',
      window: { schedule: '0 3 29 2 *', duration: '1h' },
      now: '2030-03-01T00:00:00Z',
      open: false,
      next: '2032-02-29T03:00:00.000Z',
    },
    {
      what: 'every 20 minutes for 5 minutes, between two',
      window: { schedule: '*/20 * * * *', duration: '5m' },
      now: '2030-01-07T10:07:00Z',
      open: false,
      next: '2030-01-07T10:20:00.000Z',
    },
    {
      what: 'every 20 minutes, inside one',
      window: { schedule: '*/20 * * * *', duration: '5m' },
      now: '2030-01-07T10:22:00Z',
      open: true,
      closesAt: '2030-01-07T10:25:00.000Z',
      next: '2030-01-07T10:40:00.000Z',
    },
    {
      what: 'weekdays in New York, on a Saturday: Monday 22:00 EST',
      window: { schedule: '0 22 * * mon-fri', duration: '2h', timeZone: 'America/New_York' },
      now: '2030-01-05T12:00:00Z',
      open: false,
      next: '2030-01-08T03:00:00.000Z',
    },
    {
      what: "weekdays in New York: Friday's window runs into Saturday (UTC)",
      window: { schedule: '0 22 * * mon-fri', duration: '2h', timeZone: 'America/New_York' },
      now: '2030-01-12T04:30:00Z',
      open: true,
      closesAt: '2030-01-12T05:00:00.000Z',
      next: '2030-01-15T03:00:00.000Z',
    },
    {
      what: 'Berlin, spring forward: 02:30 does not exist on 31 March, the window opens at 03:00 CEST',
      window: { schedule: '30 2 * * *', duration: '1h', timeZone: 'Europe/Berlin' },
      now: '2030-03-30T12:00:00Z',
      open: false,
      next: '2030-03-31T01:00:00.000Z',
    },
    {
      what: 'Berlin, spring forward: open from the jump for its full hour',
      window: { schedule: '30 2 * * *', duration: '1h', timeZone: 'Europe/Berlin' },
      now: '2030-03-31T01:10:00Z',
      open: true,
      closesAt: '2030-03-31T02:00:00.000Z',
      next: '2030-04-01T00:30:00.000Z',
    },
    {
      what: 'Berlin, fall back: a 2h window from 01:30 CEST spans the repeated hour, 2 real hours',
      window: { schedule: '30 1 * * *', duration: '2h', timeZone: 'Europe/Berlin' },
      now: '2030-10-27T01:15:00Z', // 02:15 CET, the second pass
      open: true,
      closesAt: '2030-10-27T01:30:00.000Z', // 02:30 CET
      next: '2030-10-28T00:30:00.000Z', // 01:30 CET
    },
    {
      what: 'Berlin, fall back: 02:30 occurs twice and opens once, at the first',
      window: { schedule: '30 2 * * *', duration: '30m', timeZone: 'Europe/Berlin' },
      now: '2030-10-27T01:40:00Z', // 02:40 CET, after the second 02:30
      open: false,
      next: '2030-10-28T01:30:00.000Z',
    },
    {
      what: 'New York, spring forward: 02:30 opens at 03:00 EDT',
      window: { schedule: '30 2 * * *', duration: '1h', timeZone: 'America/New_York' },
      now: '2030-03-10T06:00:00Z',
      open: false,
      next: '2030-03-10T07:00:00.000Z',
    },
    {
      what: 'New York, fall back: 01:30 opens once (EDT); the repeated 01:40 EST is outside',
      window: { schedule: '30 1 * * *', duration: '30m', timeZone: 'America/New_York' },
      now: '2030-11-03T06:40:00Z',
      open: false,
      next: '2030-11-04T06:30:00.000Z',
    },
    {
      what: 'New York, fall back: a window every 30 minutes opens on both passes of the hour',
      window: { schedule: '*/30 1 * * *', duration: '10m', timeZone: 'America/New_York' },
      now: '2030-11-03T06:35:00Z', // 01:35 EST, the second pass
      open: true,
      closesAt: '2030-11-03T06:40:00.000Z',
      next: '2030-11-04T06:00:00.000Z',
    },
  ];
  for (const row of periods) {
    test(row.what, () => {
      const status = maintenanceWindowStatus([row.window], at(row.now));
      assert.equal(status.error, undefined);
      assert.equal(status.open, row.open);
      assert.equal(iso(status.closesAt), row.closesAt);
      assert.equal(iso(status.nextOpening), row.next);
      assert.equal(iso(status.opensAt), row.open ? undefined : row.next);
    });
  }

  test('a schedule that never fires again leaves the pool closed with no opening', () => {
    const status = maintenanceWindowStatus(
      [{ schedule: '0 0 31 2 *', duration: '1h' }],
      at('2030-01-01T00:00:00Z'),
    );
    assert.deepEqual(status, { open: false });
  });

  test('time zone errors name the zone', () => {
    for (const zone of ['Europe/Berlinn', '+02:00', '']) {
      const status = maintenanceWindowStatus(
        [{ schedule: '0 2 * * *', duration: '1h', timeZone: zone }],
        at('2030-01-07T02:30:00Z'),
      );
      assert.equal(status.open, false);
      assert.match(status.error ?? '', new RegExp(`time zone "${zone.replace('+', '\\+')}" is unknown`));
    }
  });

  test('a wall-clock time as users read it', () => {
    assert.equal(
      formatWallClock('Europe/Berlin', at('2030-03-31T01:00:00Z')),
      'Sun 2030-03-31 03:00 Europe/Berlin',
    );
    assert.equal(
      formatWallClock('America/New_York', at('2030-11-03T06:30:00Z')),
      'Sun 2030-11-03 01:30 America/New_York',
    );
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
