// Unit-test fixtures of nodeherd's alerting rules (src/api/alert-rules.ts), for `promtool test rules`:
// for every alert, series under which it fires (with the labels and value it fires with) and series
// under which it stays quiet (the state just short of it, or a healthy one). Times are minutes from
// the start of a test; promtool's time() starts at 0, so a timestamp series' value is that second.

export interface Series {
  series: string;
  values: string;
}

export interface AlertCase {
  /** What the case shows. */
  name: string;
  series: Series[];
  /** Minutes from the start. */
  at: number;
  /** The alerts expected at `at`: their labels (besides alertname and severity) and value. */
  fires: { labels: Record<string, string>; value: number }[];
}

export interface AlertFixture {
  alert: string;
  cases: AlertCase[];
}

const JOB = 'job="nodeherd-controller-metrics"';
const condition = (pool: string, type: string, status: string) =>
  `nodeherd_pool_status_condition{pool="${pool}",condition="${type}",status="${status}"}`;
/** A condition series set: 1 on the status it has, 0 on the others, for `minutes` + 1 samples. */
const conditionSeries = (pool: string, type: string, is: string, minutes: number): Series[] =>
  ['true', 'false', 'unknown'].map((status) => ({
    series: condition(pool, type, status),
    values: `${status === is ? 1 : 0}x${minutes}`,
  }));

export const ALERT_FIXTURES: AlertFixture[] = [
  {
    alert: 'NodeherdControllerDown',
    cases: [
      {
        name: 'the only target down for 10 minutes',
        series: [{ series: `up{${JOB},instance="10.0.0.5:8080"}`, values: '0x10' }],
        at: 10,
        fires: [{ labels: {}, value: 1 }],
      },
      {
        name: 'no target scraped at all (another job only)',
        series: [{ series: 'up{job="node",instance="n1:9100"}', values: '1x10' }],
        at: 10,
        fires: [{ labels: {}, value: 1 }],
      },
      {
        name: 'one replica down, the other up',
        series: [
          { series: `up{${JOB},instance="10.0.0.5:8080"}`, values: '0x10' },
          { series: `up{${JOB},instance="10.0.0.6:8080"}`, values: '1x10' },
        ],
        at: 10,
        fires: [],
      },
      {
        name: 'down for 3 minutes only',
        series: [{ series: `up{${JOB},instance="10.0.0.5:8080"}`, values: '1x6 0x4' }],
        at: 10,
        fires: [],
      },
    ],
  },
  {
    alert: 'NodeherdControllerNoLeader',
    cases: [
      {
        name: 'two replicas, neither leads',
        series: [
          { series: `nodeherd_controller_leader{${JOB},instance="a"}`, values: '0x10' },
          { series: `nodeherd_controller_leader{${JOB},instance="b"}`, values: '0x10' },
        ],
        at: 10,
        fires: [{ labels: {}, value: 0 }],
      },
      {
        name: 'one leads',
        series: [
          { series: `nodeherd_controller_leader{${JOB},instance="a"}`, values: '0x10' },
          { series: `nodeherd_controller_leader{${JOB},instance="b"}`, values: '1x10' },
        ],
        at: 10,
        fires: [],
      },
    ],
  },
  {
    alert: 'NodeherdRolloutStalled',
    cases: [
      {
        name: 'pool web Stalled for 20 minutes, pool db reconciling',
        series: [
          ...conditionSeries('web', 'Stalled', 'true', 20),
          ...conditionSeries('db', 'Stalled', 'false', 20),
        ],
        at: 20,
        fires: [{ labels: { pool: 'web', condition: 'Stalled', status: 'true' }, value: 1 }],
      },
      {
        name: 'Stalled for 10 minutes only',
        series: [
          { series: condition('web', 'Stalled', 'true'), values: '0x10 1x10' },
          { series: condition('web', 'Stalled', 'false'), values: '1x10 0x10' },
          { series: condition('web', 'Stalled', 'unknown'), values: '0x20' },
        ],
        at: 20,
        fires: [],
      },
    ],
  },
  {
    alert: 'NodeherdNodesFailed',
    cases: [
      {
        name: 'two failed nodes in pool web for 10 minutes',
        series: [
          { series: 'nodeherd_pool_status_failed_nodes{pool="web"}', values: '2x10' },
          { series: 'nodeherd_pool_status_failed_nodes{pool="db"}', values: '0x10' },
        ],
        at: 10,
        fires: [{ labels: { pool: 'web' }, value: 2 }],
      },
      {
        name: 'a failure retried away within 5 minutes',
        series: [{ series: 'nodeherd_pool_status_failed_nodes{pool="web"}', values: '0x5 1x3 0x2' }],
        at: 10,
        fires: [],
      },
    ],
  },
  {
    alert: 'NodeherdNodesDrifted',
    cases: [
      {
        name: 'three drifted nodes for 40 minutes',
        series: [{ series: 'nodeherd_pool_status_drifted_nodes{pool="web"}', values: '3x40' }],
        at: 40,
        fires: [{ labels: { pool: 'web' }, value: 3 }],
      },
      {
        name: 'drift repaired after 20 minutes',
        series: [{ series: 'nodeherd_pool_status_drifted_nodes{pool="web"}', values: '1x20 0x20' }],
        at: 40,
        fires: [],
      },
    ],
  },
  {
    alert: 'NodeherdRebootPendingTooLong',
    cases: [
      {
        name: 'node n1 has waited 25 hours, n2 one hour',
        series: [
          {
            series: 'nodeherd_node_reboot_required_since_timestamp_seconds{pool="web",node="n1"}',
            values: '0x1500',
          },
          {
            series: 'nodeherd_node_reboot_required_since_timestamp_seconds{pool="web",node="n2"}',
            values: '_x1440 86400x60',
          },
        ],
        at: 1500,
        fires: [{ labels: { pool: 'web', node: 'n1' }, value: 90_000 }],
      },
      {
        name: 'a node that waited 23 hours, then rebooted (its series gone)',
        series: [
          {
            series: 'nodeherd_node_reboot_required_since_timestamp_seconds{pool="web",node="n1"}',
            values: '0x1380 _x120',
          },
        ],
        at: 1500,
        fires: [],
      },
    ],
  },
  {
    alert: 'NodeherdSerialSlotHeldTooLong',
    cases: [
      {
        name: 'slot 0 held by n1 for 70 minutes, slot 1 handed to n2 10 minutes ago',
        series: [
          {
            series:
              'nodeherd_serial_slot_acquired_timestamp_seconds{pool="web",lease="nodeherd-serial-web-0",node="n1"}',
            values: '0x70',
          },
          {
            series:
              'nodeherd_serial_slot_acquired_timestamp_seconds{pool="web",lease="nodeherd-serial-web-1",node="n2"}',
            values: '_x60 3600x10',
          },
        ],
        at: 70,
        fires: [{ labels: { pool: 'web', lease: 'nodeherd-serial-web-0', node: 'n1' }, value: 4200 }],
      },
      {
        name: 'the slot moves on every 20 minutes',
        series: [
          {
            series:
              'nodeherd_serial_slot_acquired_timestamp_seconds{pool="web",lease="nodeherd-serial-web-0",node="n1"}',
            values: '0x20 1200x20 2400x20 3600x10',
          },
        ],
        at: 70,
        fires: [],
      },
    ],
  },
];
