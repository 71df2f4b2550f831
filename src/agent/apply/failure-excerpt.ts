// Why an apply failed, in the failing program's own words: the failed unit's last journal lines
// (`journalctl -u <unit> -n 20 -o cat` through the systemd executor) and the failed probe's or
// command's output, bounded in size, with every line that holds the value of a file that came from
// a Secret masked. The agent attaches it to its failure report: the cause (one line) to the Node's
// annotation and Event, the whole excerpt to the NodeConfigReady condition (docs/operations.md,
// "Why a node failed"; who can read it: docs/security.md).

import type { RenderedConfig } from '../../api/types.ts';
import { truncateUtf8 } from '../../util/truncate-utf8.ts';
import type { FileExecutor, SystemdExecutor } from '../executors/types.ts';

/** Journal lines asked for (`journalctl -n`). */
export const JOURNAL_EXCERPT_LINES = 20;
/** Lines of a probe's or command's output kept (its last ones). */
export const OUTPUT_EXCERPT_LINES = 20;
/** One line of the excerpt is cut at this many UTF-8 bytes. */
export const EXCERPT_LINE_BYTES = 512;
/** The whole excerpt (every section, with its headings) is at most this many UTF-8 bytes. */
export const EXCERPT_MAX_BYTES = 4096;
/** A line of a Secret's value shorter than this is not looked for (a `}` would mask everything). */
export const MIN_SECRET_NEEDLE = 4;
export const REDACTED_LINE = '[redacted: this line holds the value of a file that came from a Secret]';

/** What the agent saw of a failure besides its one-line reason. */
export interface FailureEvidence {
  /** The unit that failed (or whose probe failed, or whose start/restart failed). */
  unit?: string;
  /** The failed probe's or command's output. */
  output?: string;
  /** Which: 'probe output' or 'command output'. */
  outputTitle?: string;
}

export interface FailureExcerpt {
  /** The line that says why (the failing program's last own line), redacted; absent when none. */
  cause?: string;
  /** The excerpt as text: sections of lines under their heading, redacted and bounded. */
  text: string;
}

/** Masks each line that contains a needle (a line of a Secret-sourced file's value). */
export function redactLines(lines: readonly string[], needles: readonly string[]): string[] {
  if (needles.length === 0) return [...lines];
  return lines.map((line) => (needles.some((n) => line.includes(n)) ? REDACTED_LINE : line));
}

/** The needles of Secret values: each line of each value, trimmed, of MIN_SECRET_NEEDLE characters or more. */
export function secretNeedles(values: readonly Buffer[]): string[] {
  const needles = new Set<string>();
  for (const value of values) {
    for (const line of value.toString('utf8').split(/\r?\n/)) {
      const trimmed = line.trim();
      if (trimmed.length >= MIN_SECRET_NEEDLE) needles.add(trimmed);
    }
  }
  return [...needles];
}

/** The values of the Secret-sourced files of the given configs, as the node's files hold them now. */
export async function secretFileValues(
  files: FileExecutor,
  configs: readonly (RenderedConfig | undefined)[],
): Promise<Buffer[]> {
  const paths = new Set<string>();
  for (const config of configs) {
    for (const file of config?.files ?? []) if (file.content.secretRef) paths.add(file.path);
  }
  const values: Buffer[] = [];
  for (const path of paths) {
    try {
      const state = await files.read(path);
      if (state?.kind === 'file' && state.content.length > 0) values.push(state.content);
    } catch {
      // unreadable: nothing of it can be in the excerpt through this path either
    }
  }
  return values;
}

/** systemd's own lines about a unit, which say that it failed but not why. */
const SYSTEMD_BOILERPLATE = [
  /: Main process exited, /,
  /: Failed with result '/,
  /: Scheduled restart job/,
  /: Consumed .* CPU time/,
  /: Deactivated successfully/,
  /: Start request repeated too quickly/,
  /^(Started|Stopped|Starting|Stopping|Failed to start|Finished) /,
];

/**
 * The line of a unit's journal that says why: its program's last line, or else systemd's last line
 * about the unit that is not boilerplate ("Failed at step EXEC spawning …").
 */
export function journalCause(unit: string, lines: readonly string[]): string | undefined {
  const telling = lines.filter((l) => l.trim() !== '' && !SYSTEMD_BOILERPLATE.some((re) => re.test(l)));
  const own = telling.filter((l) => !l.startsWith(`${unit}: `));
  return own.at(-1) ?? telling.at(-1);
}

function cutLine(line: string): string {
  return truncateUtf8(line.replace(/\s+$/, ''), EXCERPT_LINE_BYTES);
}

/** The last `count` non-empty lines of a program's output. */
function lastLines(text: string, count: number): string[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(-count);
}

/** Builds the excerpt: the unit's journal, then the output, each redacted, the whole bounded. */
export function buildExcerpt(
  evidence: FailureEvidence,
  journal: readonly string[],
  needles: readonly string[],
): FailureExcerpt {
  const sections: { title: string; lines: string[] }[] = [];
  let cause: string | undefined;
  if (evidence.unit !== undefined && journal.length > 0) {
    const lines = redactLines(journal.map(cutLine), needles);
    sections.push({ title: `journalctl -u ${evidence.unit} -n ${JOURNAL_EXCERPT_LINES}`, lines });
    cause = journalCause(evidence.unit, lines);
  }
  if (evidence.output !== undefined && evidence.output.trim() !== '') {
    const lines = redactLines(lastLines(evidence.output, OUTPUT_EXCERPT_LINES).map(cutLine), needles);
    sections.push({ title: evidence.outputTitle ?? 'output', lines });
    // A probe's own words say more than the journal of a unit that is running.
    if (evidence.outputTitle === 'probe output' || cause === undefined) cause = lines.at(-1) ?? cause;
  }
  return { ...(cause !== undefined ? { cause } : {}), text: boundSections(sections) };
}

/** The sections as text within EXCERPT_MAX_BYTES: the oldest lines of a section go first. */
function boundSections(sections: { title: string; lines: string[] }[]): string {
  const render = () =>
    sections.map((s) => [`${s.title}:`, ...s.lines.map((l) => `  ${l}`)].join('\n')).join('\n');
  let text = render();
  while (Buffer.byteLength(text) > EXCERPT_MAX_BYTES) {
    const longest = sections.reduce((a, b) => (b.lines.length > a.lines.length ? b : a));
    if (longest.lines.length <= 1) return truncateUtf8(text, EXCERPT_MAX_BYTES);
    longest.lines.shift();
    if (!longest.title.endsWith('(earlier lines cut)')) longest.title += ' (earlier lines cut)';
    text = render();
  }
  return text;
}

/** Masks the lines of a text (a failure's reason) that hold a needle. */
export function redactText(text: string, needles: readonly string[]): string {
  return needles.length === 0 ? text : redactLines(text.split('\n'), needles).join('\n');
}

/**
 * Gathers the excerpt of a failure on the node: the journal through the executor, the Secret values
 * from the files the configs name (as the node holds them now: call it before a rollback rewrites
 * them); `reason` comes back redacted too.
 */
export async function gatherExcerpt(
  reason: string,
  evidence: FailureEvidence,
  executors: { systemd: SystemdExecutor; files: FileExecutor },
  configs: readonly (RenderedConfig | undefined)[],
): Promise<FailureExcerpt & { reason: string }> {
  const [journal, values] = await Promise.all([
    evidence.unit !== undefined
      ? executors.systemd.journal(evidence.unit, JOURNAL_EXCERPT_LINES).catch(() => [])
      : Promise.resolve([]),
    secretFileValues(executors.files, configs),
  ]);
  const needles = secretNeedles(values);
  return { ...buildExcerpt(evidence, journal, needles), reason: redactText(reason, needles) };
}

/** The unit a failed plan action acted on, when it is a systemd job (start, restart, …). */
export function unitOfAction(action: { kind: string; name?: string }): string | undefined {
  const jobs = ['start-unit', 'restart-unit', 'reload-unit', 'stop-unit', 'enable-unit', 'disable-unit'];
  return jobs.includes(action.kind) ? action.name : undefined;
}
