// The hand-written Prometheus registry renders the text exposition format correctly.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentMetrics } from '../../../src/agent/metrics/agent-metrics.ts';
import { Counter, Gauge, Histogram, MetricsRegistry } from '../../../src/agent/metrics/prometheus-text.ts';

describe('Prometheus text exposition', () => {
  it('renders counters, gauges and histograms with labels, escaped', () => {
    const registry = new MetricsRegistry();
    const counter = registry.register(new Counter('c_total', 'A counter.', ['unit']));
    const plain = registry.register(new Counter('plain_total', 'No labels.'));
    const gauge = registry.register(new Gauge('g', 'A gauge\nwith a newline.', ['name']));
    const histogram = registry.register(new Histogram('h_seconds', 'A histogram.', [1, 0.1], ['result']));
    counter.inc({ unit: 'a.service' });
    counter.inc({ unit: 'a.service' }, 2);
    counter.inc({ unit: 'we"ird\\unit' });
    gauge.set({ name: 'x' }, 1.5);
    histogram.observe({ result: 'ok' }, 0.05);
    histogram.observe({ result: 'ok' }, 0.5);
    histogram.observe({ result: 'ok' }, 5);
    assert.equal(
      registry.render(),
      [
        '# HELP c_total A counter.',
        '# TYPE c_total counter',
        'c_total{unit="a.service"} 3',
        'c_total{unit="we\\"ird\\\\unit"} 1',
        '# HELP plain_total No labels.',
        '# TYPE plain_total counter',
        'plain_total 0',
        '# HELP g A gauge\\nwith a newline.',
        '# TYPE g gauge',
        'g{name="x"} 1.5',
        '# HELP h_seconds A histogram.',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{result="ok",le="0.1"} 1',
        'h_seconds_bucket{result="ok",le="1"} 2',
        'h_seconds_bucket{result="ok",le="+Inf"} 3',
        'h_seconds_sum{result="ok"} 5.55',
        'h_seconds_count{result="ok"} 3',
        '',
      ].join('\n'),
    );
    assert.equal(plain.get(), 0);
    assert.throws(() => counter.inc({}, -1), RangeError);
    assert.throws(() => registry.register(new Counter('c_total', 'again')), /exists/);
  });

  it('keeps one current revision and one state set in the agent metrics', () => {
    const metrics = new AgentMetrics();
    metrics.setCurrentRevision('pool-1', 'aaa');
    metrics.setCurrentRevision('pool-2', 'bbb');
    metrics.setState('Applying');
    metrics.setState('Done');
    metrics.syncApiRequests({
      byVerb: { get: 2, list: 1, watch: 1, create: 0, update: 0, patch: 3, delete: 0 },
    } as never);
    metrics.syncApiRequests({
      byVerb: { get: 2, list: 1, watch: 2, create: 0, update: 0, patch: 3, delete: 0 },
    } as never);
    const text = metrics.render();
    assert.match(text, /nodeherd_agent_current_revision_info\{revision="pool-2",hash="bbb"\} 1/);
    assert.doesNotMatch(text, /pool-1/);
    assert.match(text, /nodeherd_agent_state\{state="Done"\} 1/);
    assert.match(text, /nodeherd_agent_state\{state="Applying"\} 0/);
    assert.match(text, /nodeherd_agent_api_requests_total\{verb="watch"\} 2/);
    assert.match(text, /nodeherd_agent_api_requests_total\{verb="patch"\} 3/);
  });
});
