import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  negotiateOutput,
  type OutputChoice,
  targetMismatch,
} from '../../../src/apiserver/schema/media-negotiation.ts';

const kubectlGet =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const metadataList =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

function choose(accept: string | undefined, options = {}): OutputChoice {
  const result = negotiateOutput(accept, options);
  assert.ok(result.ok, `not acceptable: ${accept}`);
  return result.choice;
}

test('what clients send and what they get', () => {
  const json: OutputChoice = { mediaType: 'application/json', target: 'Object', pretty: false };
  const cases: [string | undefined, OutputChoice][] = [
    [undefined, json],
    ['', json],
    ['*/*', json],
    ['application/*', json],
    ['application/json, */*', json],
    ['application/vnd.kubernetes.protobuf, application/json', json],
    [
      kubectlGet,
      { mediaType: 'application/json', target: 'Table', apiVersion: 'meta.k8s.io/v1', pretty: false },
    ],
    [
      'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
      { mediaType: 'application/json', target: 'Table', apiVersion: 'meta.k8s.io/v1beta1', pretty: false },
    ],
    [
      metadataList,
      {
        mediaType: 'application/json',
        target: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        pretty: false,
      },
    ],
    [
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
      {
        mediaType: 'application/json',
        target: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        pretty: false,
      },
    ],
    // Unknown conversions and groups are skipped, then the plain clause wins.
    ['application/json;as=Widget;g=meta.k8s.io;v=v1, application/json', json],
    ['application/json;as=Table;g=apps;v=v1, application/json', json],
    // q-values order the clauses; concrete types come before wildcards.
    [
      'application/json;q=0.5, application/json;as=Table;g=meta.k8s.io;v=v1',
      { mediaType: 'application/json', target: 'Table', apiVersion: 'meta.k8s.io/v1', pretty: false },
    ],
    ['application/json;pretty=1', { ...json, pretty: true }],
    ['application/json;stream=watch', { ...json, stream: 'watch' }],
  ];
  for (const [accept, want] of cases) assert.deepEqual(choose(accept), want, String(accept));
});

test('only unsupported types: 406 with kube wording', () => {
  for (const accept of [
    'application/vnd.kubernetes.protobuf',
    'text/html',
    'application/json;as=Table',
    'application/json;q=0',
    'application/json;stream=chunked',
  ]) {
    const result = negotiateOutput(accept);
    assert.ok(!result.ok, accept);
    assert.equal(result.error.code, 406);
    assert.equal(result.error.reason, 'NotAcceptable');
    assert.equal(result.error.message, 'only the following media types are accepted: application/json');
  }
});

test('server options: YAML, tables off, watches', () => {
  assert.equal(
    choose('application/yaml', { mediaTypes: ['application/json', 'application/yaml'] }).mediaType,
    'application/yaml',
  );
  assert.equal(
    choose('application/yaml;as=Table;g=meta.k8s.io;v=v1', {
      mediaTypes: ['application/json', 'application/yaml'],
    }).target,
    'Table',
  );
  assert.equal(choose(kubectlGet, { tables: false }).target, 'Object');
  const watchYaml = negotiateOutput('application/yaml', {
    mediaTypes: ['application/json', 'application/yaml'],
    watch: true,
  });
  assert.ok(!watchYaml.ok);
  assert.equal(
    watchYaml.error.message,
    'only the following media types are accepted: application/json;stream=watch',
  );
  assert.equal(
    choose(undefined, { watch: true, mediaTypes: ['application/yaml', 'application/json'] }).mediaType,
    'application/json',
  );
});

test('a list asked for as one object (or the reverse) is not acceptable', () => {
  assert.equal(targetMismatch('PartialObjectMetadata', true)?.code, 406);
  assert.equal(
    targetMismatch('PartialObjectMetadataList', false)?.message,
    'you requested PartialObjectMetadataList, but the requested object is not a list',
  );
  assert.equal(targetMismatch('PartialObjectMetadata', false), undefined);
  assert.equal(targetMismatch('Table', true), undefined);
});
