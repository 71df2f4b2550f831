// The sample NodeConfig and NodeConfigPool `nodeherd up` starts with (deploy/samples). Each object is
// created only when the cluster has none of its kind and name, and only once per state directory:
// a rerun must neither undo the user's `kubectl edit` nor bring back a sample the user deleted.

import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { KubeClient } from '../kube/kube-client.ts';
import { isKubeError } from '../kube/kube-error.ts';
import { KUBE_YAML } from '../util/kube-yaml.ts';

export const SAMPLES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../deploy/samples');

interface SampleObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
}

const RESOURCES: Record<string, string> = {
  NodeConfig: 'nodeconfigs',
  NodeConfigPool: 'nodeconfigpools',
};

// NodeConfigs first: a pool created before its configs would render an empty revision first.
const ORDER = ['NodeConfig', 'NodeConfigPool'];

export interface SampleResult {
  /** Kind/name, e.g. NodeConfigPool/workers. */
  key: string;
  created: boolean;
}

/** The sample objects, read from the YAML files in `dir`. */
export async function loadSamples(dir = SAMPLES_DIR): Promise<SampleObject[]> {
  const objects: SampleObject[] = [];
  for (const file of (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    const path = join(dir, file);
    for (const doc of parseAllDocuments(await readFile(path, 'utf8'), KUBE_YAML)) {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message}`);
      const object = doc.toJS() as SampleObject | null;
      if (object === null) continue;
      if (!RESOURCES[object.kind] || !object.apiVersion || !object.metadata?.name) {
        throw new Error(
          `${path}: kind must be NodeConfig or NodeConfigPool with apiVersion and metadata.name`,
        );
      }
      objects.push(object);
    }
  }
  return objects.sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
}

/**
 * Creates each sample object the cluster does not have yet, except those in `done` (created by an
 * earlier run); says what it found for each.
 */
export async function applySamplesIfAbsent(
  client: KubeClient,
  done: ReadonlySet<string>,
  dir = SAMPLES_DIR,
): Promise<SampleResult[]> {
  const results: SampleResult[] = [];
  for (const object of await loadSamples(dir)) {
    const collection = `/apis/${object.apiVersion}/${RESOURCES[object.kind]}`;
    const name = object.metadata.name;
    const key = `${object.kind}/${name}`;
    if (done.has(key)) {
      results.push({ key, created: false });
      continue;
    }
    let created = false;
    try {
      await client.get(`${collection}/${name}`);
    } catch (error) {
      if (!isKubeError(error, 404)) throw error;
      try {
        await client.create(collection, object);
        created = true;
      } catch (createError) {
        if (!isKubeError(createError, 409)) {
          throw new Error(`sample ${object.kind} ${name}: ${(createError as Error).message}`);
        }
      }
    }
    results.push({ key, created });
  }
  return results;
}
