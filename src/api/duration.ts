// Durations written the way Kubernetes users know them from Go: "90m", "1h30m", "45s", "1.5h".

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const WHOLE = /^(?:[0-9]+(?:\.[0-9]+)?(?:ms|h|m|s))+$/;
const PART = /([0-9]+(?:\.[0-9]+)?)(ms|h|m|s)/g;

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  if (!WHOLE.test(text)) return undefined;
  let total = 0;
  for (const match of text.matchAll(PART)) total += Number(match[1]) * UNIT_MS[match[2]!]!;
  return total;
}
