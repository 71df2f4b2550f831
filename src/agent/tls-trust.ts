// The agent process trusts no default CA: every connection it verifies (to its API server) names the
// cluster's CA itself, and health probes verify nothing. A TLS context given a `ca` still builds the
// process's default store once, as a side effect: Node's ~150 bundled root certificates, parsed and
// kept (with --use-openssl-ca, the system's bundle in /etc/ssl/certs instead). Emptying the default
// list first leaves nothing to parse. With the unit's --use-openssl-ca, which keeps node:tls from
// parsing the bundled roots on a thread of their own as it loads, the idle agent holds 1.8 MB less
// (56.4 → 54.6 MB, bench/agent-idle.bench.ts; the flag alone 0.4 MB) (issue 17).

/**
 * Empties the process's default CA list (tls.setDefaultCACertificates, Node ≥ 24.5; older runtimes
 * keep their defaults). Only for the agent's own process: a connection without `ca` then fails
 * verification instead of trusting the public CAs.
 */
export function trustOnlyNamedCas(): void {
  // getBuiltinModule: node:tls without the bundle's ESM interop, and without a link error on a runtime
  // that lacks the export.
  const tls = process.getBuiltinModule('node:tls') as {
    setDefaultCACertificates?: (certs: string[]) => void;
  };
  tls.setDefaultCACertificates?.([]);
}
