import type { ActivityPreset, JobDefinition } from './define-job';
import { msToNumber } from '../shared/sdk-internals';

/** One problem of a catalog, named by its path. */
export interface CatalogProblem {
  path: string;
  message: string;
}

/** A duration the SDK accepts and that is more than zero, in ms; `undefined` otherwise. */
function positiveMs(value: unknown): number | undefined {
  try {
    const ms = msToNumber(value as Parameters<typeof msToNumber>[0]);
    return Number.isFinite(ms) && ms > 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

const durationHint = "must be a duration of more than 0, such as '30s', '5m' or 1500 (ms)";

/**
 * What is wrong with a job's presets and queue that the SDK would only say when a workflow
 * schedules the step: then the workflow task fails and is retried forever, and the job stays
 * `running` without ever reaching the DLQ. Checked when the catalog is built.
 */
export function presetProblems(d: JobDefinition, at: string): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  for (const [name, preset] of Object.entries((d.presets ?? {}) as Record<string, ActivityPreset>)) {
    const p = `${at}.presets.${name}`;
    const t = preset?.timeouts;
    if (positiveMs(t?.startToClose) === undefined) problems.push({ path: `${p}.timeouts.startToClose`, message: durationHint });
    for (const key of ['scheduleToClose', 'heartbeat'] as const) {
      if (t?.[key] !== undefined && positiveMs(t[key]) === undefined) problems.push({ path: `${p}.timeouts.${key}`, message: durationHint });
    }
    const retry = preset?.retry;
    if (retry?.kind === 'schedule') {
      if (!Array.isArray(retry.delays) || retry.delays.length === 0) problems.push({ path: `${p}.retry`, message: 'a retry schedule needs at least one delay' });
      else retry.delays.forEach((delay, i) => positiveMs(delay) === undefined && problems.push({ path: `${p}.retry.delays.${i}`, message: durationHint }));
    } else if (retry?.kind === 'exponential') {
      for (const key of ['initialInterval', 'maximumInterval'] as const) if (positiveMs(retry[key]) === undefined) problems.push({ path: `${p}.retry.${key}`, message: durationHint });
      if (!(Number.isInteger(retry.maximumAttempts) && retry.maximumAttempts >= 0)) problems.push({ path: `${p}.retry.maximumAttempts`, message: 'must be a whole number, 0 for unlimited' });
      if (!(typeof retry.backoffCoefficient === 'number' && retry.backoffCoefficient >= 1)) problems.push({ path: `${p}.retry.backoffCoefficient`, message: 'must be a number of at least 1' });
    } else problems.push({ path: `${p}.retry`, message: "must be schedule('1s', '5s', …) or exponential({ … })" });
  }
  const queue = d.queue;
  if (queue?.concurrency !== undefined && !(Number.isInteger(queue.concurrency) && queue.concurrency >= 1)) {
    problems.push({ path: `${at}.queue.concurrency`, message: 'must be a whole number of at least 1' });
  }
  if (queue?.rateLimit !== undefined && !(typeof queue.rateLimit === 'number' && Number.isFinite(queue.rateLimit) && queue.rateLimit > 0)) {
    problems.push({ path: `${at}.queue.rateLimit`, message: 'must be a number of activity attempts per second, more than 0' });
  }
  return problems;
}
