import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  osRebootRequest,
  prestageProgress,
  type ReportedCondition,
  type ReportingNode,
  readAgentReport,
  waitingOsReboot,
} from '../../src/api/node-report.ts';

function node(annotations: Record<string, string>, conditions: ReportedCondition[] = []): ReportingNode {
  return { metadata: { annotations }, status: { conditions } };
}

const asks = (reason = 'SentinelFile'): ReportedCondition => ({
  type: 'nodeherd.io/RebootRequired',
  status: 'True',
  reason,
  message: '/var/run/reboot-required exists',
});

describe('what a Node reports of the agent', () => {
  it('reads the agent annotations as written, an empty value kept empty', () => {
    assert.deepEqual(
      readAgentReport(
        node({
          'nodeherd.io/state': 'Failed',
          'nodeherd.io/current-revision': '',
          'nodeherd.io/desired-revision': 'p-2',
          'nodeherd.io/message': 'revision p-2 failed: unit x',
        }),
      ),
      {
        state: 'Failed',
        currentRevision: '',
        desiredRevision: 'p-2',
        message: 'revision p-2 failed: unit x',
      },
    );
    assert.deepEqual(readAgentReport({ metadata: {} }), {
      state: undefined,
      currentRevision: undefined,
      desiredRevision: undefined,
      message: undefined,
    });
  });

  it('an OS reboot request is RebootRequired True, not the agent rebooting for a request', () => {
    assert.equal(osRebootRequest(node({}, [asks()]))?.message, '/var/run/reboot-required exists');
    assert.equal(osRebootRequest(node({}, [asks('Rebooting')])), undefined);
    assert.equal(osRebootRequest(node({}, [{ ...asks(), status: 'False' }])), undefined);
    assert.equal(osRebootRequest(node({}, [])), undefined);
  });

  it('a node waits for a reboot to be asked only while no request is unanswered', () => {
    assert.ok(waitingOsReboot(node({}, [asks()])));
    const asked = { 'nodeherd.io/reboot-requested': 'r1' };
    assert.equal(waitingOsReboot(node(asked, [asks()])), undefined);
    assert.ok(waitingOsReboot(node({ ...asked, 'nodeherd.io/rebooted': 'r1' }, [asks()])));
    assert.equal(waitingOsReboot(node({}, [asks('Rebooting')])), undefined);
  });

  it('pre-staging: not asked, downloading until the report is for the asked revision, then its outcome', () => {
    assert.equal(prestageProgress(node({})), undefined);
    assert.equal(prestageProgress(node({ 'nodeherd.io/prestage-revision': '' })), undefined);
    const ask = { 'nodeherd.io/prestage-revision': 'p-3' };
    assert.deepEqual(prestageProgress(node(ask)), { revision: 'p-3', state: 'downloading' });
    const report = (revision: string, outcome: string, message?: string) =>
      JSON.stringify({ revision, outcome, ...(message ? { message } : {}) });
    assert.deepEqual(
      prestageProgress(node({ ...ask, 'nodeherd.io/prestaged': report('p-2', 'Downloaded') })),
      {
        revision: 'p-3',
        state: 'downloading',
      },
    );
    assert.deepEqual(
      prestageProgress(node({ ...ask, 'nodeherd.io/prestaged': report('p-3', 'Downloaded', '3 packages') })),
      { revision: 'p-3', state: 'downloaded', message: '3 packages' },
    );
    assert.deepEqual(
      prestageProgress(node({ ...ask, 'nodeherd.io/prestaged': report('p-3', 'Failed', 'E: 404') })),
      { revision: 'p-3', state: 'failed', message: 'E: 404' },
    );
    assert.deepEqual(prestageProgress(node({ ...ask, 'nodeherd.io/prestaged': '{not json' })), {
      revision: 'p-3',
      state: 'downloading',
    });
  });
});
