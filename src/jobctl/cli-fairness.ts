import type { Command } from 'commander';
import type { JobDefinition } from '../catalog/define-job';
import { fairnessKeyProblem, fairnessWeightProblem, type FairnessOptions } from '../catalog/fairness';
import { UsageError } from './cli-support';

/** The flags {@link addFairnessOptions} adds, as commander parses them. */
export interface FairnessFlags {
  fairnessKey?: string;
  fairnessWeight?: string;
}

/** Adds `--fairness-key` and `--fairness-weight` to a command that starts jobs. */
export function addFairnessOptions(command: Command): Command {
  return command
    .option('--fairness-key <key>', "share the queue fairly with other keys' jobs, e.g. a tenant (1 to 64 bytes; default: what the job type derives)")
    .option('--fairness-weight <w>', "the key's share against others', 0.001 to 1000 (default 1)");
}

/** Parses the fairness flags; a bad one is a usage error naming the flag. */
export function parseFairnessFlags(flags: FairnessFlags): FairnessOptions {
  const options: FairnessOptions = {};
  if (flags.fairnessKey !== undefined) {
    const problem = fairnessKeyProblem(flags.fairnessKey);
    if (problem) throw new UsageError(`--fairness-key: ${problem}`);
    options.fairnessKey = flags.fairnessKey;
  }
  if (flags.fairnessWeight !== undefined) {
    // A decimal number only: Number() would also take "0x10", "1e3 " or "Infinity".
    const weight = /^(\d+\.?\d*|\.\d+)$/.test(flags.fairnessWeight) ? Number(flags.fairnessWeight) : Number.NaN;
    const problem = fairnessWeightProblem(weight);
    if (problem) throw new UsageError(`--fairness-weight: ${problem.replace(/got .*$/, `got ${JSON.stringify(flags.fairnessWeight)}`)}`);
    options.fairnessWeight = weight;
  }
  return options;
}

/** What `jobctl types` shows of a type's fairness and limits. */
export interface FlowControlView {
  /** Whether the type derives a fairness key from the payload. */
  fairness?: true;
  /** `limits.ratePerKey`: starts per second per fairness key. */
  ratePerKey?: number;
  /** `limits.concurrencyPerKey`: jobs running at once per concurrency key. */
  concurrencyPerKey?: number;
  /** `queue.rateLimit`: activity attempts per second on the type's queue, over all workers. */
  queueRateLimit?: number;
}

/** A type's {@link FlowControlView}: only what it declares. */
export function flowControlOf(definition: JobDefinition): FlowControlView {
  const view: FlowControlView = {};
  if (definition.fairness) view.fairness = true;
  if (definition.limits?.ratePerKey !== undefined) view.ratePerKey = definition.limits.ratePerKey;
  if (definition.limits?.concurrencyPerKey !== undefined) view.concurrencyPerKey = definition.limits.concurrencyPerKey;
  if (definition.queue?.rateLimit !== undefined) view.queueRateLimit = definition.queue.rateLimit;
  return view;
}

/** A {@link FlowControlView} as a suffix of a `jobctl types` line: ` (fair by key, at most 10/s per key)`, or nothing. */
export function formatFlowControl(view: FlowControlView): string {
  const parts = [
    view.fairness ? 'fair by key' : undefined,
    view.ratePerKey === undefined ? undefined : `at most ${view.ratePerKey}/s per key`,
    view.concurrencyPerKey === undefined ? undefined : `at most ${view.concurrencyPerKey} at once per key`,
    view.queueRateLimit === undefined ? undefined : `at most ${view.queueRateLimit}/s on its queue`,
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
