// What to plan from when an earlier apply did not finish. The plan diffs "what the node has" against
// "what it should have"; normally "what it has" is the last applied revision. After an interrupted
// or failed apply of another revision the node is a mix, and diffing from last-applied would miss
// what that apply already changed: a file it rewrote that the new target has as last-applied had it
// would stay rewritten (Gardener never cleans a half-applied config: gardener#10972).
//
// So the base is last-applied, except that everything an unfinished revision changed or added is
// marked unknown, in the way that makes plan() produce the action the target needs: unknown content
// never equals the target's (written again, dependants restarted), unknown enablement and state are
// the opposite of the target's, and things the target does not have are kept so they get removed.
// The price is extra restarts of what those revisions touched; never a stale file.

import type {
  RenderedConfig,
  RenderedFile,
  RenderedPackage,
  RenderedRepository,
  RenderedUnit,
} from '../../api/types.ts';
import { canonicalJson } from '../../util/canonical-json.ts';

/** Content no config can have (NUL bytes are refused in plain text by validation, and this is not base64). */
const UNKNOWN = '\u0000nodeherd: unknown after an interrupted apply\u0000';

const EMPTY_CONFIG: RenderedConfig = {
  files: [],
  units: [],
  repositories: [],
  packages: [],
  disruptionPolicies: { files: [], units: [], packages: [] },
};

/**
 * The config to plan from, given the last applied config (undefined: none), the configs of
 * unfinished applies, and the target. Without unfinished applies that is simply last-applied.
 */
export function recoveryBase(
  lastApplied: RenderedConfig | undefined,
  unfinished: readonly RenderedConfig[],
  target: RenderedConfig,
): RenderedConfig | undefined {
  if (unfinished.length === 0) return lastApplied;
  const base = lastApplied ?? EMPTY_CONFIG;
  const all = [base, ...unfinished];
  return {
    files: merge(all, target, 'files', (f) => f.path, unknownFile),
    units: merge(all, target, 'units', (u) => u.name, unknownUnit),
    repositories: merge(all, target, 'repositories', (r) => r.name, unknownRepository),
    packages: merge(all, target, 'packages', (p) => p.name, unknownPackage),
    disruptionPolicies: base.disruptionPolicies,
  };
}

type Collection = 'files' | 'units' | 'repositories' | 'packages';
type Item<K extends Collection> = RenderedConfig[K][number];

/**
 * The items of one collection (`field`, keyed by `key`). Items on which every config agrees stay as
 * they are; any other item (changed, added or removed by an unfinished apply) becomes
 * `unknown(versions, targetItem)`.
 */
function merge<K extends Collection>(
  configs: readonly RenderedConfig[],
  target: RenderedConfig,
  field: K,
  key: (item: Item<K>) => string,
  unknown: (versions: Item<K>[], target: Item<K> | undefined) => Item<K>,
): Item<K>[] {
  const items = (config: RenderedConfig): readonly Item<K>[] => config[field];
  const maps = configs.map((c) => new Map(items(c).map((item) => [key(item), item])));
  const targets = new Map(items(target).map((item) => [key(item), item]));
  const keys = [...new Set(maps.flatMap((m) => [...m.keys()]))].sort();
  return keys.map((k) => {
    const versions = maps.map((m) => m.get(k));
    const present = versions.filter((v): v is Item<K> => v !== undefined);
    const first = canonicalJson(present[0]);
    const agreed = present.length === versions.length && present.every((v) => canonicalJson(v) === first);
    return agreed ? present[0]! : unknown(present, targets.get(k));
  });
}

function unknownFile(versions: RenderedFile[]): RenderedFile {
  return { ...versions[0]!, content: { inline: { data: UNKNOWN, encoding: 'plain' } } };
}

function unknownUnit(versions: RenderedUnit[], target: RenderedUnit | undefined): RenderedUnit {
  const created = versions.some((v) => v.content !== undefined);
  const dropInNames = [...new Set(versions.flatMap((v) => v.dropIns.map((d) => d.name)))].sort();
  const dropIns = dropInNames.map((name) => {
    const contents = versions.map((v) => v.dropIns.find((d) => d.name === name)?.content);
    const agreed = contents.every((c) => c !== undefined && c === contents[0]);
    return { name, content: agreed ? contents[0]! : UNKNOWN };
  });
  const first = versions[0]!;
  const unit: RenderedUnit = {
    ...first,
    dropIns,
    filePaths: [...new Set(versions.flatMap((v) => v.filePaths))].sort(),
    packages: [...new Set(versions.flatMap((v) => v.packages))].sort(),
  };
  if (created) unit.content = UNKNOWN;
  else delete unit.content;
  const enabled = unknownEnabled(versions, target);
  if (enabled === undefined) delete unit.enabled;
  else unit.enabled = enabled;
  const state = unknownState(versions, target);
  if (state === undefined) delete unit.state;
  else unit.state = state;
  return unit;
}

// The opposite of the target's, so the plan enables or disables; for a unit that leaves, enabled if
// any version was (so it is disabled before its file goes).
function unknownEnabled(versions: RenderedUnit[], target: RenderedUnit | undefined): boolean | undefined {
  if (target) return target.enabled === undefined ? undefined : !target.enabled;
  return versions.some((v) => v.enabled === true) ? true : undefined;
}

// For a target that runs: no state, so the plan restarts it if its definition is unknown, and
// starts it otherwise. For one that is stopped: running, so the plan stops it. For a unit that
// leaves: running if any version ran, so it is stopped before its file goes.
function unknownState(versions: RenderedUnit[], target: RenderedUnit | undefined): RenderedUnit['state'] {
  if (target) return target.state === 'stopped' ? 'running' : undefined;
  return versions.some((v) => v.state === 'running') ? 'running' : undefined;
}

function unknownRepository(versions: RenderedRepository[]): RenderedRepository {
  return { ...versions[0]!, uri: `unknown://${encodeURIComponent(UNKNOWN)}` };
}

function unknownPackage(versions: RenderedPackage[], target: RenderedPackage | undefined): RenderedPackage {
  if (!target) return versions[0]!;
  return { name: target.name, state: target.state === 'absent' ? 'present' : 'absent' };
}
