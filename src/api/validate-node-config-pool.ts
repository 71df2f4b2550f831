// Validation of a NodeConfigPool, with exact field paths.

import { compileAlertName } from './alert-matcher.ts';
import { normalisedPathProblem } from './config-rules.ts';
import { CronError, parseCron } from './cron.ts';
import { cronEverFires, isIanaTimeZone } from './cron-times.ts';
import { parseDuration } from './duration.ts';
import { arrayAt, enumAt, FieldErrors, integerAt, isObject, objectAt, stringAt } from './field-errors.ts';
import { validateLabelSelector } from './label-selector.ts';
import { MAX_POOL_NAME_LENGTH } from './limits.ts';
import {
  COMPARE_MARGIN_UNITS,
  COMPARE_NODES_PLACEHOLDER,
  COMPARE_WORSE_WHEN,
  MAX_NOTIFICATION_WEBHOOKS,
  MAX_SENTINEL_ARGUMENT_LENGTH,
  MAX_SENTINEL_ARGUMENTS,
  MAX_WAVE_PREDECESSORS,
  METRIC_GATE_OPERATORS,
  STRATEGY_FIELDS,
  UPDATE_STRATEGY_TYPES,
} from './node-config-pool-schema.ts';
import { DRIFT_POLICIES, OS_REBOOT_POLICIES } from './node-protocol.ts';
import { DNS1123_LABEL, DNS1123_SUBDOMAIN } from './patterns.ts';
import { DRAIN_TIMEOUT_ACTIONS } from './pool-drain-schema.ts';
import { validateRolloutOrder } from './pool-order-schema.ts';
import { validatePrestage } from './prestage-schema.ts';
import { secretNamespace } from './validate-node-config.ts';

const PERCENT = /^([0-9]+)%$/;

/** An IntOrString that must allow at least one node: a positive integer or 1%..100%. */
function positiveIntOrPercent(errors: FieldErrors, field: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 1) {
      errors.invalid(field, value, 'must be a positive integer or a percentage such as "25%"');
    }
    return;
  }
  const match = typeof value === 'string' ? PERCENT.exec(value) : null;
  if (!match || Number(match[1]) < 1 || Number(match[1]) > 100) {
    errors.invalid(field, value, 'must be a positive integer or a percentage between "1%" and "100%"');
  }
}

function validateMaintenanceWindow(errors: FieldErrors, at: string, value: unknown): void {
  if (!isObject(value)) {
    errors.typeInvalid(at, value, 'an object');
    return;
  }
  const schedule = stringAt(errors, `${at}.schedule`, value.schedule);
  if (schedule === undefined) errors.required(`${at}.schedule`);
  else {
    try {
      parseCron(schedule);
      if (!cronEverFires(schedule))
        errors.invalid(`${at}.schedule`, schedule, 'never fires: no date has this day and month');
    } catch (err) {
      if (!(err instanceof CronError)) throw err;
      errors.invalid(`${at}.schedule`, schedule, `must be a cron schedule: ${err.message}`);
    }
  }
  const duration = stringAt(errors, `${at}.duration`, value.duration);
  if (duration === undefined) errors.required(`${at}.duration`);
  else {
    const ms = parseDuration(duration);
    if (ms === undefined) errors.invalid(`${at}.duration`, duration, 'must be a duration such as 4h or 90m');
    else if (ms < 60_000) errors.invalid(`${at}.duration`, duration, 'must be at least 1m');
  }
  const zone = stringAt(errors, `${at}.timeZone`, value.timeZone);
  if (zone !== undefined && !isIanaTimeZone(zone)) {
    errors.invalid(
      `${at}.timeZone`,
      zone,
      /^[+-]/.test(zone)
        ? 'must be an IANA time zone such as Europe/Berlin, not a fixed offset (offsets ignore daylight saving time)'
        : 'must be an IANA time zone such as Europe/Berlin or America/New_York',
    );
  }
}

function validatePrometheus(errors: FieldErrors, at: string, value: unknown): void {
  const prom = objectAt(errors, at, value);
  if (!prom) return;
  const url = stringAt(errors, `${at}.url`, prom.url);
  if (url === undefined) errors.required(`${at}.url`);
  else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      errors.invalid(`${at}.url`, url, 'must be an absolute http or https URL');
    }
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      errors.invalid(`${at}.url`, url, 'must be an absolute http or https URL');
    else if (parsed && (parsed.username || parsed.password))
      // Never echo the value: it holds a password.
      errors.forbidden(`${at}.url`, 'must not contain credentials; put them in credentialsSecretRef');
    else if (parsed && (parsed.search || parsed.hash))
      errors.invalid(`${at}.url`, url, 'must not have a query or fragment');
  }
  const ref = objectAt(errors, `${at}.credentialsSecretRef`, prom.credentialsSecretRef);
  if (ref) {
    secretNamespace(errors, `${at}.credentialsSecretRef.namespace`, ref.namespace);
    const name = stringAt(errors, `${at}.credentialsSecretRef.name`, ref.name);
    if (name === undefined) errors.required(`${at}.credentialsSecretRef.name`);
    else if (!new RegExp(DNS1123_SUBDOMAIN).test(name))
      errors.invalid(`${at}.credentialsSecretRef.name`, name, 'must be a DNS-1123 subdomain');
  }
  integerAt(errors, `${at}.timeoutSeconds`, prom.timeoutSeconds, 1, 60);
  integerAt(errors, `${at}.intervalSeconds`, prom.intervalSeconds, 1, 3600);
}

/** One gate of a list: an object (a null item is refused too, not skipped). */
function gateAt(errors: FieldErrors, at: string, value: unknown): Record<string, any> | undefined {
  const gate = objectAt(errors, at, value);
  if (!gate && value === null) errors.typeInvalid(at, value, 'an object');
  return gate;
}

/** A gate's name: required, a DNS-1123 label, unique among the gates `seen` holds (it is added there). */
function validateGateName(errors: FieldErrors, at: string, value: unknown, seen: Set<string>): void {
  const name = stringAt(errors, at, value);
  if (name === undefined) errors.required(at);
  else if (!new RegExp(DNS1123_LABEL).test(name) || name.length > 63)
    errors.invalid(at, name, 'must be a DNS-1123 label (lower case alphanumerics or -)');
  else if (seen.has(name)) errors.duplicate(at, name);
  else seen.add(name);
}

/** A gate's PromQL query: required, at most 4096 characters, and nothing `problem` finds wrong with it. */
function validateGateQuery(
  errors: FieldErrors,
  at: string,
  value: unknown,
  problem: (query: string) => string | undefined,
): void {
  const query = stringAt(errors, at, value);
  if (query === undefined) errors.required(at);
  else if (query.length > 4096) errors.tooLong(at, 4096, query.length);
  else {
    const wrong = problem(query);
    if (wrong !== undefined) errors.invalid(at, query, wrong);
  }
}

function validateMetricGate(errors: FieldErrors, at: string, value: unknown, seen: Set<string>): void {
  const gate = gateAt(errors, at, value);
  if (!gate) return;
  validateGateName(errors, `${at}.name`, gate.name, seen);
  validateGateQuery(errors, `${at}.query`, gate.query, (query) =>
    query.trim() === '' ? 'must be a PromQL expression' : undefined,
  );
  const operator = enumAt(errors, `${at}.operator`, gate.operator, METRIC_GATE_OPERATORS);
  if (gate.operator === undefined || gate.operator === null) errors.required(`${at}.operator`);
  const threshold = gate.threshold;
  if (threshold !== undefined && threshold !== null) {
    if (typeof threshold !== 'number' || !Number.isFinite(threshold))
      errors.typeInvalid(`${at}.threshold`, threshold, 'a finite number');
    else if (operator === 'NoSeries')
      errors.forbidden(`${at}.threshold`, 'may not be set when operator is NoSeries');
  } else if (operator !== undefined && operator !== 'NoSeries') {
    errors.required(`${at}.threshold`, `required when operator is ${operator}`);
  }
}

function validateCompareGate(errors: FieldErrors, at: string, value: unknown, seen: Set<string>): void {
  const gate = gateAt(errors, at, value);
  if (!gate) return;
  validateGateName(errors, `${at}.name`, gate.name, seen);
  validateGateQuery(errors, `${at}.query`, gate.query, (query) =>
    query.includes(COMPARE_NODES_PLACEHOLDER)
      ? undefined
      : `must contain ${COMPARE_NODES_PLACEHOLDER} where the node matcher goes, e.g. rate(errors_total{${COMPARE_NODES_PLACEHOLDER}}[5m])`,
  );
  const label = stringAt(errors, `${at}.nodeLabel`, gate.nodeLabel);
  if (label !== undefined && (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(label) || label.length > 128))
    errors.invalid(`${at}.nodeLabel`, label, 'must be a Prometheus label name');
  enumAt(errors, `${at}.worseWhen`, gate.worseWhen, COMPARE_WORSE_WHEN);
  enumAt(errors, `${at}.marginUnit`, gate.marginUnit, COMPARE_MARGIN_UNITS);
  const margin = gate.margin;
  if (margin === undefined || margin === null) errors.required(`${at}.margin`);
  else if (typeof margin !== 'number' || !Number.isFinite(margin))
    errors.typeInvalid(`${at}.margin`, margin, 'a finite number');
  else if (margin < 0) errors.invalid(`${at}.margin`, margin, 'must be 0 or more');
  integerAt(errors, `${at}.minNodes`, gate.minNodes, 1, 1000);
}

function validateAlertGate(errors: FieldErrors, at: string, value: unknown): void {
  const gate = gateAt(errors, at, value);
  if (!gate) return;
  const alertname = stringAt(errors, `${at}.alertname`, gate.alertname);
  if (alertname !== undefined) {
    try {
      compileAlertName(alertname);
    } catch (err) {
      errors.invalid(
        `${at}.alertname`,
        alertname,
        `must be an RE2 regular expression: ${(err as Error).message}`,
      );
    }
  }
  const labels = objectAt(errors, `${at}.matchLabels`, gate.matchLabels);
  for (const [key, v] of Object.entries(labels ?? {})) {
    if (typeof v !== 'string') errors.typeInvalid(`${at}.matchLabels.${key}`, v, 'a string');
  }
}

// Metric and alert gates need a Prometheus to ask, and are enforced by RollingUpdate only: refused
// elsewhere rather than silently ignored.
function validateHealthGate(errors: FieldErrors, at: string, value: unknown, type: StrategyType): void {
  const gate = objectAt(errors, at, value);
  if (!gate) return;
  if (gate.podSelector !== undefined) validateLabelSelector(errors, `${at}.podSelector`, gate.podSelector);
  if (gate.blockingPodSelector !== undefined && gate.blockingPodSelector !== null)
    validateLabelSelector(errors, `${at}.blockingPodSelector`, gate.blockingPodSelector);
  validatePrometheus(errors, `${at}.prometheus`, gate.prometheus);
  const seen = new Set<string>();
  const metrics = arrayAt(errors, `${at}.metrics`, gate.metrics);
  metrics.forEach((m, i) => {
    validateMetricGate(errors, `${at}.metrics[${i}]`, m, seen);
  });
  const compareSeen = new Set<string>();
  const compare = arrayAt(errors, `${at}.compare`, gate.compare);
  compare.forEach((c, i) => {
    validateCompareGate(errors, `${at}.compare[${i}]`, c, compareSeen);
  });
  const alerts = arrayAt(errors, `${at}.alerts`, gate.alerts);
  alerts.forEach((a, i) => {
    validateAlertGate(errors, `${at}.alerts[${i}]`, a);
  });
  const asksPrometheus = metrics.length > 0 || alerts.length > 0 || compare.length > 0;
  const hasPrometheus = gate.prometheus !== undefined && gate.prometheus !== null;
  if (asksPrometheus && !hasPrometheus)
    errors.required(`${at}.prometheus`, 'metrics, compare and alerts need the Prometheus server to ask');
  if (hasPrometheus && !asksPrometheus)
    errors.required(`${at}.metrics`, 'prometheus is set, but no metrics, compare or alerts use it');
  for (const field of ['blockingPodSelector', 'prometheus', 'metrics', 'compare', 'alerts']) {
    if (gate[field] !== undefined && gate[field] !== null && type !== 'RollingUpdate')
      errors.forbidden(`${at}.${field}`, 'may only be set when type is RollingUpdate');
  }
}

function validateRollingUpdate(errors: FieldErrors, at: string, value: unknown, type: StrategyType): void {
  const ru = objectAt(errors, at, value);
  if (!ru) return;
  positiveIntOrPercent(errors, `${at}.maxUnavailable`, ru.maxUnavailable);
  positiveIntOrPercent(errors, `${at}.maxUnavailablePerZone`, ru.maxUnavailablePerZone);
  stringAt(errors, `${at}.zoneLabel`, ru.zoneLabel);
  const canary = objectAt(errors, `${at}.canary`, ru.canary);
  if (canary) {
    if (canary.nodes === undefined || canary.nodes === null) errors.required(`${at}.canary.nodes`);
    positiveIntOrPercent(errors, `${at}.canary.nodes`, canary.nodes);
  }
  const minReady = integerAt(errors, `${at}.minReadySeconds`, ru.minReadySeconds, 0);
  const deadline = integerAt(errors, `${at}.progressDeadlineSeconds`, ru.progressDeadlineSeconds, 1);
  if (minReady !== undefined && deadline !== undefined && deadline <= minReady) {
    errors.invalid(`${at}.progressDeadlineSeconds`, deadline, 'must be greater than minReadySeconds');
  }
  const failure = objectAt(errors, `${at}.failurePolicy`, ru.failurePolicy);
  if (failure) {
    enumAt(errors, `${at}.failurePolicy.action`, failure.action, ['Pause', 'Rollback'] as const);
    integerAt(errors, `${at}.failurePolicy.maxFailures`, failure.maxFailures, 0);
  }
  validateHealthGate(errors, `${at}.healthGate`, ru.healthGate, type);
  arrayAt(errors, `${at}.maintenanceWindows`, ru.maintenanceWindows).forEach((w, i) => {
    validateMaintenanceWindow(errors, `${at}.maintenanceWindows[${i}]`, w);
  });
}

type StrategyType = (typeof UPDATE_STRATEGY_TYPES)[number];

// The types whose settings each field holds: STRATEGY_FIELDS, shared with the CRD's rules.

/** Waves: the pools named must be pool names, each once, never this pool (a cycle of one). */
function validateWave(errors: FieldErrors, at: string, value: unknown, pool: unknown): void {
  const wave = objectAt(errors, at, value);
  if (!wave) return;
  if (wave.after === undefined || wave.after === null) errors.required(`${at}.after`);
  const after = arrayAt(errors, `${at}.after`, wave.after);
  if (after.length > MAX_WAVE_PREDECESSORS) {
    errors.invalid(
      `${at}.after`,
      `${after.length} pools`,
      `must name at most ${MAX_WAVE_PREDECESSORS} pools`,
    );
  }
  const seen = new Set<string>();
  after.forEach((entry, i) => {
    const field = `${at}.after[${i}]`;
    const name = stringAt(errors, field, entry);
    if (name === undefined) return;
    if (name.length > MAX_POOL_NAME_LENGTH || !new RegExp(DNS1123_LABEL).test(name)) {
      errors.invalid(field, name, 'must be a NodeConfigPool name (a DNS-1123 label)');
    } else if (name === pool) {
      errors.invalid(field, name, 'a pool cannot wait for itself');
    } else if (seen.has(name)) {
      errors.duplicate(field, name);
    }
    seen.add(name);
  });
  integerAt(errors, `${at}.soakSeconds`, wave.soakSeconds, 0);
}

function validateUpdateStrategy(errors: FieldErrors, at: string, value: unknown, pool: unknown): void {
  const strategy = objectAt(errors, at, value);
  if (!strategy) return;
  validateWave(errors, `${at}.wave`, strategy.wave, pool);
  const type = enumAt(errors, `${at}.type`, strategy.type, UPDATE_STRATEGY_TYPES) ?? 'RollingUpdate';
  // Like Deployment: settings of another strategy type are refused, not silently ignored.
  for (const [field, owners] of Object.entries(STRATEGY_FIELDS)) {
    if (strategy[field] !== undefined && strategy[field] !== null && !owners.includes(type)) {
      errors.forbidden(`${at}.${field}`, `may only be set when type is ${owners.join(' or ')}`);
    }
  }
  if (STRATEGY_FIELDS.rollingUpdate!.includes(type))
    validateRollingUpdate(errors, `${at}.rollingUpdate`, strategy.rollingUpdate, type);
  const serial = objectAt(errors, `${at}.serial`, strategy.serial);
  if (serial) {
    integerAt(errors, `${at}.serial.slots`, serial.slots, 1);
    integerAt(errors, `${at}.serial.leaseDurationSeconds`, serial.leaseDurationSeconds, 10);
  }
  const spread = objectAt(errors, `${at}.spread`, strategy.spread);
  if (type === 'Spread' && !spread)
    errors.required(`${at}.spread`, 'spread.windowSeconds is required when type is Spread');
  if (spread) {
    if (spread.windowSeconds === undefined)
      errors.required(`${at}.spread.windowSeconds`, 'required when type is Spread');
    integerAt(errors, `${at}.spread.windowSeconds`, spread.windowSeconds, 1);
    positiveIntOrPercent(errors, `${at}.spread.maxUnavailable`, spread.maxUnavailable);
  }
  const onDelete = objectAt(errors, `${at}.onDelete`, strategy.onDelete);
  if (onDelete) {
    enumAt(errors, `${at}.onDelete.outdatedTaint`, onDelete.outdatedTaint, [
      'None',
      'NoSchedule',
      'PreferNoSchedule',
    ] as const);
  }
}

/** Causes for a whole NodeConfigPool object; empty when it is acceptable. */
/** spec.reboots: the sentinel is a normalised absolute path, the command an argv with an absolute program. */
function validateReboots(errors: FieldErrors, at: string, value: unknown): void {
  const reboots = objectAt(errors, at, value);
  if (!reboots) return;
  const os = objectAt(errors, `${at}.osRequested`, reboots.osRequested);
  if (!os) return;
  const base = `${at}.osRequested`;
  enumAt(errors, `${base}.policy`, os.policy, OS_REBOOT_POLICIES);
  const file = stringAt(errors, `${base}.sentinelFile`, os.sentinelFile);
  if (file !== undefined) {
    const problem = normalisedPathProblem(file);
    if (problem) errors.invalid(`${base}.sentinelFile`, file, problem);
  }
  if (os.sentinelCommand !== undefined && os.sentinelCommand !== null) {
    const command = arrayAt(errors, `${base}.sentinelCommand`, os.sentinelCommand);
    if (Array.isArray(os.sentinelCommand) && command.length === 0)
      errors.invalid(`${base}.sentinelCommand`, command, 'must name a program');
    if (command.length > MAX_SENTINEL_ARGUMENTS)
      errors.invalid(
        `${base}.sentinelCommand`,
        command.length,
        `must have at most ${MAX_SENTINEL_ARGUMENTS} items`,
      );
    command.slice(0, MAX_SENTINEL_ARGUMENTS).forEach((item, i) => {
      const field = `${base}.sentinelCommand[${i}]`;
      const arg = stringAt(errors, field, item);
      if (arg === undefined) return;
      if (arg.length > MAX_SENTINEL_ARGUMENT_LENGTH)
        errors.tooLong(field, MAX_SENTINEL_ARGUMENT_LENGTH, arg.length);
      else if (arg.includes('\0')) errors.invalid(field, arg, 'must not contain NUL');
      else if (i === 0) {
        // No PATH lookup: the program is the one named, wherever the command runs (host namespaces).
        const problem = normalisedPathProblem(arg);
        if (problem) errors.invalid(field, arg, `the program ${problem} (it is run without a shell or PATH)`);
      }
    });
  }
  integerAt(errors, `${base}.timeoutSeconds`, os.timeoutSeconds, 1, 300);
}

/** spec.drain: Skip and Force need a timeout shorter than the progress deadline, or they never act. */
function validateDrain(errors: FieldErrors, at: string, value: unknown, spec: Record<string, any>): void {
  const drain = objectAt(errors, at, value);
  if (!drain) return;
  const timeout = integerAt(errors, `${at}.timeoutSeconds`, drain.timeoutSeconds, 1);
  integerAt(errors, `${at}.gracePeriodSeconds`, drain.gracePeriodSeconds, 0);
  const maxSkipped = integerAt(errors, `${at}.maxSkipped`, drain.maxSkipped, 1);
  if (drain.skipPodSelector !== undefined && drain.skipPodSelector !== null)
    validateLabelSelector(errors, `${at}.skipPodSelector`, drain.skipPodSelector);
  for (const field of ['deleteEmptyDirData', 'forceDeleteBudgetedPods'])
    if (drain[field] !== undefined && drain[field] !== null && typeof drain[field] !== 'boolean')
      errors.typeInvalid(`${at}.${field}`, drain[field], 'a boolean');
  const action = enumAt(errors, `${at}.onTimeout`, drain.onTimeout, DRAIN_TIMEOUT_ACTIONS);
  if (action === 'Force' || action === 'Skip') {
    const deadline = spec.updateStrategy?.rollingUpdate?.progressDeadlineSeconds ?? 600;
    if (timeout === undefined) errors.required(`${at}.timeoutSeconds`, `onTimeout ${action} needs a timeout`);
    else if (typeof deadline === 'number' && timeout >= deadline)
      errors.invalid(
        `${at}.timeoutSeconds`,
        timeout,
        `must be less than rollingUpdate.progressDeadlineSeconds (${deadline}): the node fails at the deadline before ${action} could act`,
      );
  }
  if (maxSkipped !== undefined && action !== 'Skip')
    errors.forbidden(`${at}.maxSkipped`, 'may only be set when onTimeout is Skip');
  if (drain.forceDeleteBudgetedPods === true && action !== 'Force')
    errors.forbidden(`${at}.forceDeleteBudgetedPods`, 'may only be set when onTimeout is Force');
}

/** spec.notifications: webhook names only (Secrets in nodeherd's namespace), distinct, a few. */
function validateNotifications(errors: FieldErrors, at: string, value: unknown): void {
  const notifications = objectAt(errors, at, value);
  if (!notifications) return;
  if (notifications.webhooks === undefined || notifications.webhooks === null) {
    errors.required(`${at}.webhooks`);
    return;
  }
  const webhooks = arrayAt(errors, `${at}.webhooks`, notifications.webhooks);
  if (webhooks.length > MAX_NOTIFICATION_WEBHOOKS)
    errors.invalid(
      `${at}.webhooks`,
      webhooks.length,
      `may name at most ${MAX_NOTIFICATION_WEBHOOKS} webhooks`,
    );
  const seen = new Set<string>();
  webhooks.forEach((w, i) => {
    const name = stringAt(errors, `${at}.webhooks[${i}]`, w);
    if (name === undefined) return;
    if (!new RegExp(DNS1123_SUBDOMAIN).test(name) || name.length > 253)
      errors.invalid(
        `${at}.webhooks[${i}]`,
        name,
        'must be the name of a Secret in namespace nodeherd (a DNS-1123 subdomain); a pool names webhooks, never URLs',
      );
    else if (seen.has(name)) errors.duplicate(`${at}.webhooks[${i}]`, name);
    else seen.add(name);
  });
}

export function validateNodeConfigPool(obj: unknown): FieldErrors['causes'] {
  const errors = new FieldErrors();
  if (!isObject(obj)) {
    errors.typeInvalid('', obj, 'an object');
    return errors.causes;
  }
  // Pool names are label values on nodes and revisions, and prefix revision names.
  const name = obj.metadata?.name;
  if (
    typeof name === 'string' &&
    (name.length > MAX_POOL_NAME_LENGTH || !new RegExp(DNS1123_LABEL).test(name))
  ) {
    errors.invalid(
      'metadata.name',
      name,
      `must be a DNS-1123 label: at most ${MAX_POOL_NAME_LENGTH} lower case alphanumerics or -`,
    );
  }
  const spec = objectAt(errors, 'spec', obj.spec);
  if (!spec) {
    if (obj.spec === undefined || obj.spec === null) errors.required('spec');
    return errors.causes;
  }
  for (const field of ['nodeSelector', 'configSelector']) {
    if (spec[field] === undefined || spec[field] === null) errors.required(`spec.${field}`);
    else validateLabelSelector(errors, `spec.${field}`, spec[field]);
  }
  validateUpdateStrategy(errors, 'spec.updateStrategy', spec.updateStrategy, name);
  integerAt(errors, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit, 0);
  if (spec.paused !== undefined && typeof spec.paused !== 'boolean') {
    errors.typeInvalid('spec.paused', spec.paused, 'a boolean');
  }
  const drift = objectAt(errors, 'spec.drift', spec.drift);
  if (drift) enumAt(errors, 'spec.drift.policy', drift.policy, DRIFT_POLICIES);
  validateReboots(errors, 'spec.reboots', spec.reboots);
  validatePrestage(errors, spec);
  validateNotifications(errors, 'spec.notifications', spec.notifications);
  validateDrain(errors, 'spec.drain', spec.drain, spec);
  validateRolloutOrder(errors, 'spec.rolloutOrder', spec.rolloutOrder, spec.updateStrategy?.type);
  // Reboot rounds run through RollingUpdate's batches (docs/controller.md, "Reboot rounds"); the
  // other strategies hand nodes out on their own terms (slots, a spread over time, node owners) and do
  // not reboot for the OS yet: refused rather than silently left to report only.
  const strategyType = isObject(spec.updateStrategy)
    ? (spec.updateStrategy.type ?? 'RollingUpdate')
    : 'RollingUpdate';
  if (
    isObject(spec.reboots) &&
    isObject(spec.reboots.osRequested) &&
    spec.reboots.osRequested.policy === 'Reboot' &&
    typeof strategyType === 'string' &&
    strategyType !== 'RollingUpdate'
  )
    errors.forbidden(
      'spec.reboots.osRequested.policy',
      `Reboot is supported only with updateStrategy.type RollingUpdate, not ${strategyType}; use Report`,
    );
  const rollbackTo = objectAt(errors, 'spec.rollbackTo', spec.rollbackTo);
  if (rollbackTo) {
    if (rollbackTo.revision === undefined) errors.required('spec.rollbackTo.revision');
    integerAt(errors, 'spec.rollbackTo.revision', rollbackTo.revision, 1);
  }
  return errors.causes;
}
