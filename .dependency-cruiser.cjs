// Import rules between nodeherd's folders, enforced by test/architecture/layers.test.ts.
// The layers, lowest first (a folder may import its own layer's folders only where a rule below allows,
// and any lower layer): util < api < plan < kube < agent, controller, apiserver < profile < sim < nspawn
// < up < cli; src/dist builds the bundles and images beside them all. Every src/ folder is named by some
// rule (the layering test checks).
// docs/architecture.md explains each rule.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'util-imports-nothing-of-nodeherd',
      comment: 'src/util is the floor: atomic writes, YAML, time, JSON, Kubernetes wire types. It imports no other folder.',
      severity: 'error',
      from: { path: '^src/util/' },
      to: { path: '^src/', pathNot: '^src/util/' },
    },
    {
      name: 'api-imports-nothing-above',
      comment: 'src/api is the nodeherd contract: kinds, schemas, rules. It may use src/util only.',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/(api|util)/' },
    },
    {
      name: 'plan-imports-nothing-above',
      comment: 'src/plan is a pure function over the contract: it may use src/api and src/util only.',
      severity: 'error',
      from: { path: '^src/plan/' },
      to: { path: '^src/', pathNot: '^src/(plan|api|util)/' },
    },
    {
      name: 'kube-imports-no-component',
      comment: 'src/kube is the client stack every component shares: it may use src/util only.',
      severity: 'error',
      from: { path: '^src/kube/' },
      to: { path: '^src/', pathNot: '^src/(kube|util)/' },
    },
    {
      name: 'agent-not-controller-or-apiserver',
      comment: 'The agent talks to the controller and the API server over the Kubernetes API only.',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: '^src/(controller|apiserver)/' },
    },
    {
      name: 'controller-not-agent-or-apiserver',
      comment: 'The controller talks to agents and the API server over the Kubernetes API only.',
      severity: 'error',
      from: { path: '^src/controller/' },
      to: { path: '^src/(agent|apiserver)/' },
    },
    {
      name: 'apiserver-imports-no-nodeherd-code',
      comment:
        'src/apiserver is a generic Kubernetes-compatible API server: nodeherd\'s profile is injected by a ' +
        'composition root (up, the apiserver command). It may use src/util and the generic Kubernetes ' +
        'client stack src/kube (which itself imports only src/util), e.g. to write kubeconfig files.',
      severity: 'error',
      from: { path: '^src/apiserver/' },
      to: { path: '^src/', pathNot: '^src/(apiserver|util|kube)/' },
    },
    {
      name: 'components-not-sim-nspawn-up-cli',
      comment:
        'Components do not depend on the nodeherd profile of the API server, the simulation, the containers, ' +
        'nodeherd up or the CLI built on them.',
      severity: 'error',
      from: { path: '^src/(util|api|plan|kube|agent|controller|apiserver)/' },
      to: { path: '^src/(profile|sim|nspawn|up|cli)/' },
    },
    {
      name: 'sim-not-nspawn-up-cli',
      comment: 'Simulated nodes are a library that nspawn, up and tests build on.',
      severity: 'error',
      from: { path: '^src/sim/' },
      to: { path: '^src/(nspawn|up|cli)/' },
    },
    {
      name: 'nspawn-not-up-cli',
      comment: 'Container nodes are a node set that up chooses; they know nothing of up or the CLI.',
      severity: 'error',
      from: { path: '^src/nspawn/' },
      to: { path: '^src/(up|cli)/' },
    },
    {
      name: 'profile-imports-contract-and-server',
      comment:
        "src/profile is nodeherd's profile of the generic API server: it joins the contract (src/api) and " +
        'the server (src/apiserver), and serves the agent artefacts (src/dist/artefact-server.ts). It knows ' +
        'no component that runs on the server, nor what is built on it.',
      severity: 'error',
      from: { path: '^src/profile/' },
      to: { path: '^src/(plan|agent|controller|sim|nspawn|up|cli)/' },
    },
    {
      name: 'dist-builders-imported-by-nspawn-only',
      comment:
        'src/dist builds the agent bundle, the CLI and the images: it may import any part it bundles, and ' +
        'no part imports it, except container nodes (src/nspawn), which build the agent they install. ' +
        'Its artefact server is a runtime part (the next rule).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(dist|nspawn)/' },
      to: { path: '^src/dist/', pathNot: '^src/dist/artefact-server\\.ts$' },
    },
    {
      name: 'dist-artefact-server-imports-only-util',
      comment:
        'The artefact server (the agent bundle over HTTP) runs in the controller and behind the profile: ' +
        'like a component it may use src/util only.',
      severity: 'error',
      from: { path: '^src/dist/artefact-server\\.ts$' },
      to: { path: '^src/', pathNot: '^src/util/' },
    },
    {
      name: 'cli-is-the-top',
      comment:
        'The CLI (and its `up` command) is what users run; nothing imports it but the builders in ' +
        'src/dist that bundle it (build-cli.ts prebuilds the dashboard page). What it shares with up, ' +
        'nspawn or the components lives below it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|dist)/' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API dependency-cruiser can load; swc parses the sources and keeps
    // type-only imports, which count for layering as much as value imports.
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
