// The API and the agent agree on apt repositories: every value the agent's apt executor would refuse
// when writing the .sources file and keyring is refused by API validation, with its field path, so a
// bad config fails at `kubectl apply` and not later on every node; and what the API accepts (a
// repository without signingKey included) the agent writes.

import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { executeAction } from '../../src/agent/apply/action-executor.ts';
import { AptPackageExecutor } from '../../src/agent/executors/apt/apt-package-executor.ts';
import { aptRepository, keyringFile, renderSources } from '../../src/agent/executors/apt/apt-sources.ts';
import { LocalFileExecutor } from '../../src/agent/executors/local-file-executor.ts';
import { SimulatedSystemd } from '../../src/agent/executors/simulated-systemd.ts';
import { REPOSITORY_URI, WORD } from '../../src/api/patterns.ts';
import type { RenderedRepository } from '../../src/api/types.ts';
import { validateNodeConfig } from '../../src/api/validation.ts';
import { compileGoRegexp } from '../../src/apiserver/schema/go-regexp.ts';

const ARMORED = '-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----\n';
// A public-key packet (new format, tag 6) is what a binary keyring starts with.
const BINARY = Buffer.from([0xc6, 0x01, 0x04]).toString('base64');

interface Repo {
  name: string;
  uri: string;
  suites: string[];
  components: string[];
  signingKey?: { data: string; encoding?: 'armored' | 'base64' };
}

const good: Repo = {
  name: 'vendor_tools',
  uri: 'https://apt.example.com/debian',
  suites: ['bookworm'],
  components: ['main'],
  signingKey: { data: ARMORED },
};

function apiCauses(repo: Repo): string[] {
  const config = {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name: 'c' },
    spec: { repositories: [repo] },
  };
  return validateNodeConfig(config).map((cause) => cause.field);
}

/** The repository as a revision carries it (defaulted). */
function renderedRepository(repo: Repo): RenderedRepository {
  const { signingKey, ...rest } = repo;
  return signingKey ? { ...rest, signingKey: { encoding: 'armored', ...signingKey } } : rest;
}

function agentRefuses(repo: Repo): boolean {
  const apt = aptRepository(renderedRepository(repo));
  try {
    renderSources(apt, keyringFile(apt)?.path);
    return false;
  } catch {
    return true;
  }
}

const refused: [string, Partial<Repo>, string][] = [
  ['a newline in the URI (the URL parser drops it)', { uri: 'https://apt.example.com/\ndebian' }, 'uri'],
  ['a tab in the URI', { uri: 'https://apt.example.com/\tdebian' }, 'uri'],
  ['a space in the URI', { uri: 'https://apt.example.com/de bian' }, 'uri'],
  ['a # in the URI (a comment in deb822)', { uri: 'https://apt.example.com/#x' }, 'uri'],
  ['a DEL in the URI', { uri: 'https://apt.example.com/\x7f' }, 'uri'],
  ['a space in a suite', { suites: ['bookworm main'] }, 'suites[0]'],
  ['a vertical tab in a suite', { suites: ['book\vworm'] }, 'suites[0]'],
  ['a NUL in a suite', { suites: ['bookworm\0'] }, 'suites[0]'],
  ['a newline in a component', { components: ['main\nTypes: deb-src'] }, 'components[0]'],
  ['a # in a component', { components: ['#main'] }, 'components[0]'],
  ['an armored key with text before it', { signingKey: { data: `junk\n${ARMORED}` } }, 'signingKey.data'],
  [
    'base64 that is no keyring',
    { signingKey: { data: Buffer.from('hello').toString('base64'), encoding: 'base64' } },
    'signingKey.data',
  ],
  ['a 64-character name', { name: 'a'.repeat(64) }, 'name'],
];

test('what the agent refuses, the API refuses at the field', () => {
  assert.deepEqual(apiCauses(good), []);
  assert.equal(agentRefuses(good), false);
  for (const [what, change, field] of refused) {
    const repo = { ...good, ...change };
    assert.equal(agentRefuses(repo), true, `the agent refuses ${what}`);
    assert.deepEqual(apiCauses(repo), [`spec.repositories[0].${field}`], what);
  }
});

test('what the API accepts, the agent writes', () => {
  const accepted: Partial<Repo>[] = [
    { uri: 'file:///srv/repo' },
    { uri: 'http://10.0.0.1:8080/debian?x=1' },
    { suites: ['./'], components: [] },
    { suites: ['bookworm-updates', 'stable/updates'], components: ['main', 'non-free-firmware'] },
    { name: 'a'.repeat(63) },
    { signingKey: { data: BINARY, encoding: 'base64' } },
    { signingKey: { data: `\n  ${ARMORED}` } },
  ];
  for (const change of accepted) {
    const repo = { ...good, ...change };
    assert.deepEqual(apiCauses(repo), [], JSON.stringify(change));
    assert.equal(agentRefuses(repo), false, JSON.stringify(change));
  }
});

test('a repository without signingKey: the API accepts it and the agent applies it, verified with the system keyrings', async () => {
  const { signingKey: _, ...withoutKey } = good;
  assert.deepEqual(apiCauses(withoutKey), []);
  assert.equal(agentRefuses(withoutKey), false);
  // Through the apply path a node runs (it refused such a repository before), on files under a root.
  const root = await mkdtemp(join(tmpdir(), 'nodeherd-agreement-'));
  try {
    const files = new LocalFileExecutor(root);
    const executors = {
      files,
      systemd: new SimulatedSystemd(),
      packages: new AptPackageExecutor({ rootDir: root, files }),
    };
    const add = (repo: Repo) =>
      executeAction(
        {
          kind: 'add-repository',
          id: `add-repository:${repo.name}`,
          repository: renderedRepository(repo),
          reason: 'added',
        },
        executors,
      );
    await add(good);
    assert.deepEqual(await readdir(join(root, 'etc/apt/keyrings')), ['nodeherd-vendor_tools.asc']);
    await add(withoutKey);
    const sources = await readFile(
      join(root, 'etc/apt/sources.list.d/nodeherd-vendor_tools.sources'),
      'utf8',
    );
    assert.doesNotMatch(sources, /Signed-By/);
    assert.match(sources, /^URIs: https:\/\/apt\.example\.com\/debian$/m);
    assert.deepEqual(
      await readdir(join(root, 'etc/apt/keyrings')),
      [],
      'the key it had before is no longer trusted',
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('the CRD patterns say the same to a Go RE2 engine', () => {
  const word = compileGoRegexp(WORD);
  const uri = compileGoRegexp(REPOSITORY_URI);
  for (const bad of ['a b', 'a\nb', 'a\vb', '#a', 'a\x7f', 'a\0'])
    assert.equal(word.matcher(bad).find(), false, bad);
  for (const ok of ['bookworm', 'stable/updates', './', 'ümlaut'])
    assert.equal(word.matcher(ok).find(), true, ok);
  assert.equal(uri.matcher('https://x/\ny').find(), false);
  assert.equal(uri.matcher('https://x/y').find(), true);
  assert.equal(uri.matcher('ftp://x/y').find(), false);
});
