// Which alerts an alert gate blocks on: the alert name matched in full by an RE2 expression (as
// Prometheus and Alertmanager anchor their regex matchers) and labels equal to the given values. One
// definition for validation (the expression compiles) and the controller (the match). RE2 (re2js):
// linear time, so a user's expression cannot stall the controller.

import { RE2JS, RE2JSSyntaxException } from 're2js';

export interface AlertMatcherSpec {
  alertname?: string;
  matchLabels?: Record<string, string>;
}

/** Compiles an alert name expression, anchored; throws Error with the syntax problem. */
export function compileAlertName(expression: string): RE2JS {
  try {
    return RE2JS.compile(`^(?:${expression})$`);
  } catch (err) {
    if (err instanceof RE2JSSyntaxException) throw new Error(err.message);
    throw err;
  }
}

/** The alert (its labels, alertname among them) matches every field of the matcher. */
export function alertMatches(matcher: AlertMatcherSpec, labels: Readonly<Record<string, string>>): boolean {
  if (matcher.alertname !== undefined && !compileAlertName(matcher.alertname).matches(labels.alertname ?? ''))
    return false;
  for (const [key, value] of Object.entries(matcher.matchLabels ?? {}))
    if (labels[key] !== value) return false;
  return true;
}
