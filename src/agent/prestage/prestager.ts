// Pre-staging (issue 35.4): when the controller tells this node it is next in line for a revision
// (nodeherd.io/prestage-revision), the agent downloads what that revision's packages need, through the
// package manager's download (apt-get --download-only), before the node's turn: the node's disruptive
// part then holds only install and restart, and a package or version the repositories do not offer
// fails here, before the node is cordoned. The answer is nodeherd.io/prestaged (PrestageReport), which
// the controller reads; it is cleared when the ask goes. Run in the agent's reconcile loop, never beside
// an apply (one package manager at a time). Nothing of the node's configuration changes: the revision's
// repositories are read through the manager's private configuration, and the revision's Secrets are
// never read (the ask grants none).

import {
  DESIRED_REVISION_ANNOTATION,
  PRESTAGE_REVISION_ANNOTATION,
  PRESTAGED_ANNOTATION,
  type PrestageReport,
  parsePrestageReport,
} from '../../api/node-protocol.ts';
import { managerOf } from '../../api/packages/registry.ts';
import type { RenderedConfig } from '../../api/types.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import { plan } from '../../plan/plan.ts';
import type { Logger } from '../../util/logger.ts';
import { CommandError } from '../executors/command-runner.ts';
import type { PackageExecutor, PackageRequest } from '../executors/types.ts';
import type { NodeReporter } from '../report/node-reporter.ts';
import { type NodeObject, REVISIONS_PATH, type RevisionObject } from '../watch/kube-objects.ts';

/** The longest message a report carries (the package manager's words). */
const MAX_MESSAGE = 480;

export interface PrestagerOptions {
  client: LightKubeClient;
  packages: PackageExecutor;
  reporter: NodeReporter;
  logger: Logger;
  /** The config the node applied last: what the download is planned from. */
  lastApplied(): RenderedConfig | undefined;
  /** Called after each download with its outcome and duration (metrics). */
  onDownload?(outcome: PrestageReport['outcome'], seconds: number): void;
}

export class Prestager {
  private readonly options: PrestagerOptions;
  /** The ask this process answered last. */
  private answered: string | undefined;

  constructor(options: PrestagerOptions) {
    this.options = options;
  }

  /** Answers the Node's ask if it is new; clears the answer once the ask went. */
  async step(node: NodeObject | undefined): Promise<void> {
    if (!node) return;
    const annotations = node.metadata?.annotations ?? {};
    const ask = annotations[PRESTAGE_REVISION_ANNOTATION] || undefined;
    const report = parsePrestageReport(annotations[PRESTAGED_ANNOTATION]);
    const { reporter, logger } = this.options;
    if (ask === undefined) {
      this.answered = undefined;
      // The ask went (the node's turn came, a pause, a rollback): an answer left would speak for the next.
      if (annotations[PRESTAGED_ANNOTATION]) await reporter.annotate(PRESTAGED_ANNOTATION, '');
      return;
    }
    // Answered already (by this process, or by the one before it: the cache outlives it).
    if (report?.revision === ask && (this.answered === ask || this.answered === undefined)) {
      this.answered = ask;
      return;
    }
    // The node's turn came: the apply installs (and downloads) what is still missing.
    if (annotations[DESIRED_REVISION_ANNOTATION] === ask) return;
    this.answered = ask;
    const started = Date.now();
    const outcome = await this.download(ask);
    this.options.onDownload?.(outcome.outcome, (Date.now() - started) / 1000);
    logger.info({ revision: ask, outcome: outcome.outcome, detail: outcome.message }, 'pre-staged');
    await reporter.annotate(PRESTAGED_ANNOTATION, JSON.stringify(outcome));
  }

  private async download(name: string): Promise<PrestageReport> {
    const { client, packages } = this.options;
    let revision: RevisionObject;
    try {
      revision = await client.get<RevisionObject>(`${REVISIONS_PATH}/${encodeURIComponent(name)}`);
    } catch (error) {
      const why = isKubeError(error, 404) ? 'no such revision' : (error as Error).message;
      return { revision: name, outcome: 'Failed', message: bounded(`cannot read revision ${name}: ${why}`) };
    }
    try {
      const wanted = packagesToDownload(this.options.lastApplied(), revision.spec.config, packages.manager);
      const repositories = (revision.spec.config.repositories ?? []).filter(
        (r) => managerOf(r) === packages.manager,
      );
      const said = await packages.download(wanted, repositories);
      const what = wanted.map((p) => (p.version ? `${p.name}=${p.version}` : p.name)).join(' ');
      return {
        revision: name,
        outcome: 'Downloaded',
        message: bounded(wanted.length === 0 ? 'nothing to download' : `${what}: ${said}`),
      };
    } catch (error) {
      return { revision: name, outcome: 'Failed', message: bounded(failureText(error)) };
    }
  }
}

/** The packages the revision installs on this node (its plan from what it applied last), of its manager. */
export function packagesToDownload(
  lastApplied: RenderedConfig | undefined,
  target: RenderedConfig,
  manager: string,
): PackageRequest[] {
  const wanted: PackageRequest[] = [];
  for (const action of plan(lastApplied ? { config: lastApplied } : undefined, { config: target }).actions) {
    if (action.kind !== 'install-package' || managerOf(action) !== manager) continue;
    wanted.push(
      action.version === undefined ? { name: action.name } : { name: action.name, version: action.version },
    );
  }
  return wanted;
}

/** apt's own error lines ("E: Version '9.9' for 'x' was not found"), not the command line. */
function failureText(error: unknown): string {
  if (error instanceof CommandError) {
    const lines = `${error.result.stderr}\n${error.result.stdout}`
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^(E|Err):/.test(l));
    if (lines.length > 0) return lines.join('; ');
    return `${error.file} exited with ${error.result.code}`;
  }
  return (error as Error).message;
}

function bounded(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
}
