// Reads the NodeConfigs of a YAML file (several documents allowed) and validates them as the API
// server would, reporting each problem as `file:line: field: problem`.

import { readFile } from 'node:fs/promises';
import { LineCounter, parseAllDocuments } from 'yaml';
import { API_VERSION } from '../../api/group.ts';
import { nodeConfigSpecSchema } from '../../api/node-config-schema.ts';
import { DNS1123_SUBDOMAIN } from '../../api/patterns.ts';
import type { NodeConfig, NodeConfigPool } from '../../api/types.ts';
import { validateNodeConfig } from '../../api/validate-node-config.ts';
import { validateNodeConfigPool } from '../../api/validate-node-config-pool.ts';
import { KUBE_YAML } from '../../util/kube-yaml.ts';
import { CliError } from '../cli-error.ts';
import { lineOfField } from './field-lines.ts';
import { unknownFields } from './unknown-fields.ts';

export interface FileConfig {
  config: NodeConfig;
  /** Line of the document's start. */
  line: number;
}

export interface FilePool {
  pool: NodeConfigPool;
  /** Line of the document's start. */
  line: number;
}

export interface ConfigFile {
  path: string;
  configs: FileConfig[];
  /** NodeConfigPools: a changed pool (selectors, strategy) previewed as applying it would change it. */
  pools: FilePool[];
  /** Documents of other kinds, skipped: "NodeConfigPool web (line 20)". */
  skipped: string[];
  /** `file:line: field: problem` for what is legal but surely unintended (unknown fields). */
  warnings: string[];
}

/** `Invalid value: "etc/x": must be absolute` → `must be absolute` (the line shows the value). */
function problemText(message: string): string {
  const quoted = /^Invalid value: "(?:[^"\\]|\\.)*"(?:\.\.\.)?: /.exec(message);
  if (quoted) return message.slice(quoted[0].length);
  const other = /^Invalid value: [^":]*: /.exec(message);
  return other ? message.slice(other[0].length) : message;
}

export function parseConfigFile(path: string, text: string): ConfigFile {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, prettyErrors: false, ...KUBE_YAML });
  const problems: string[] = [];
  const configs: FileConfig[] = [];
  const skipped: string[] = [];
  const warnings: string[] = [];
  const names = new Map<string, number>();
  const pools: FilePool[] = [];
  const poolNames = new Map<string, number>();
  for (const document of documents) {
    // The first line of content, not the `---` before it.
    const start = lineCounter.linePos(document.contents?.range?.[0] ?? document.range[0]).line;
    for (const error of document.errors) {
      problems.push(
        `${path}:${lineCounter.linePos(error.pos[0]).line}: invalid YAML: ${error.message.split('\n')[0]}`,
      );
    }
    if (document.errors.length > 0) continue;
    const value = document.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) continue;
    const at = (field: string) => `${path}:${lineOfField(document, lineCounter, field) ?? start}`;
    if (typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`${path}:${start}: the document is not an object`);
      continue;
    }
    const object = value as Record<string, unknown>;
    const metadata = (object.metadata ?? {}) as Record<string, unknown>;
    if (object.kind === 'NodeConfigPool') {
      const pool = poolDocument(object, at, start, poolNames, problems);
      if (pool) pools.push(pool);
      continue;
    }
    if (object.kind !== 'NodeConfig') {
      skipped.push(
        `${String(object.kind ?? 'a document without kind')} ${String(metadata.name ?? '')} (line ${start})`.replace(
          '  ',
          ' ',
        ),
      );
      continue;
    }
    if (object.apiVersion !== API_VERSION) {
      problems.push(`${at('apiVersion')}: apiVersion: must be ${API_VERSION}`);
    }
    const name = metadata.name;
    if (typeof name !== 'string' || name === '') {
      problems.push(`${at('metadata.name')}: metadata.name: Required value`);
    } else if (name.length > 253 || !new RegExp(DNS1123_SUBDOMAIN).test(name)) {
      problems.push(
        `${at('metadata.name')}: metadata.name: must be a DNS subdomain (lower case alphanumerics, '-' and '.')`,
      );
    } else if (names.has(name)) {
      problems.push(
        `${at('metadata.name')}: metadata.name: NodeConfig ${name} is already defined on line ${names.get(name)}`,
      );
    } else {
      names.set(name, start);
    }
    for (const cause of validateNodeConfig(object)) {
      problems.push(`${at(cause.field)}: ${cause.field}: ${problemText(cause.message)}`);
    }
    for (const field of unknownFields(nodeConfigSpecSchema.json, object.spec, 'spec')) {
      warnings.push(`${at(field)}: ${field}: unknown field: the API server drops it`);
    }
    configs.push({ config: object as unknown as NodeConfig, line: start });
  }
  if (problems.length > 0) throw new CliError(problems.join('\n'));
  if (configs.length === 0 && pools.length === 0) {
    throw new CliError(
      `${path}: no NodeConfig or NodeConfigPool in the file${skipped.length > 0 ? ` (found ${skipped.join(', ')})` : ''}`,
    );
  }
  return { path, configs, pools, skipped, warnings };
}

/** A NodeConfigPool document, validated as the API server would (its problems go to `problems`). */
function poolDocument(
  object: Record<string, unknown>,
  at: (field: string) => string,
  start: number,
  names: Map<string, number>,
  problems: string[],
): FilePool | undefined {
  const before = problems.length;
  if (object.apiVersion !== API_VERSION)
    problems.push(`${at('apiVersion')}: apiVersion: must be ${API_VERSION}`);
  const name = ((object.metadata ?? {}) as Record<string, unknown>).name;
  if (typeof name !== 'string' || name === '') {
    problems.push(`${at('metadata.name')}: metadata.name: Required value`);
  } else if (names.has(name)) {
    problems.push(
      `${at('metadata.name')}: metadata.name: NodeConfigPool ${name} is already defined on line ${names.get(name)}`,
    );
  } else {
    names.set(name, start);
  }
  for (const cause of validateNodeConfigPool(object)) {
    problems.push(`${at(cause.field)}: ${cause.field}: ${problemText(cause.message)}`);
  }
  return problems.length === before ? { pool: object as unknown as NodeConfigPool, line: start } : undefined;
}

export async function readConfigFile(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError(
      `cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  return parseConfigFile(path === '-' ? '<stdin>' : path, text);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
