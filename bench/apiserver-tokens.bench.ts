// Issuing bearer tokens, one per node as `nodeherd up` and `nodeherd token` do, then authenticating
// with them after a restart. Issuance used to rewrite a JSON file per token (quadratic: 5,000 nodes
// ≈ 55 s); now it is one fsynced SQLite row per token.
// Run: node bench/apiserver-tokens.bench.ts   (TOKENS_BENCH_N sets the node count; default 5000)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenStore } from '../src/apiserver/auth/tokens.ts';
import { nodeherdIdentities } from '../src/profile/nodeherd-identities.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const nodes = benchNumber('TOKENS_BENCH_N', 5000, 500);
const dir = mkdtempSync(join(tmpdir(), 'nodeherd-tokens-bench-'));

try {
  const load = loadavg()[0]!.toFixed(2);
  const store = TokenStore.open(dir, nodeherdIdentities);
  const tokens: string[] = [];
  const started = performance.now();
  for (let i = 0; i < nodes; i++) {
    const ensured = await store.ensureIdentity('node', `node-${i}`);
    tokens.push(ensured.token ?? '');
  }
  const issueMs = performance.now() - started;
  store.close();

  const openedAt = performance.now();
  const reopened = TokenStore.open(dir, nodeherdIdentities);
  const openMs = performance.now() - openedAt;
  const authAt = performance.now();
  for (const [i, token] of tokens.entries()) {
    if (reopened.authenticateToken(token)?.nodeName !== `node-${i}`) throw new Error(`node-${i} lost`);
  }
  const authUs = ((performance.now() - authAt) * 1000) / nodes;
  reopened.close();

  const note = `${nodes} nodes, load ${load}`;
  console.log(
    `issued ${nodes} tokens in ${(issueMs / 1000).toFixed(2)} s (${((issueMs * 1000) / nodes).toFixed(0)} µs each); reopen ${openMs.toFixed(1)} ms; authenticate ${authUs.toFixed(1)} µs; load ${load}`,
  );
  reportFigure({
    bench: 'apiserver-tokens',
    name: `issue ${nodes} node tokens`,
    value: issueMs / 1000,
    unit: 's',
    note,
  });
  reportFigure({
    bench: 'apiserver-tokens',
    name: 'authenticate one token',
    value: authUs,
    unit: 'µs',
    note,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
