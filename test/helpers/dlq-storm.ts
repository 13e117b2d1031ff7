// The failure storm of issue 17: many jobs of one type failing for good at once, while an operator
// reads and redrives the DLQ. What it measures of the DLQ's shard workflows: history events, bytes
// and signals per run, the largest seen in any one run.
import type { Client } from '@temporalio/client';
import { deadLetterWorkflowIds } from '../../src/catalog/dead-letter-shards';

/** The largest figures seen in any one run of a DLQ workflow. */
export interface DlqRunFigures {
  /** DLQ workflows (shards, and the unsharded one if any) that ran. */
  workflows: number;
  /** Runs across them (continue-as-new starts a run). */
  runs: number;
  maxEvents: number;
  maxBytes: number;
  maxSignals: number;
}

/** Reads every run of every DLQ workflow of a type and reports the largest. */
export async function dlqRunFigures(client: Client, taskQueue: string, type: string): Promise<DlqRunFigures> {
  const figures: DlqRunFigures = { workflows: 0, runs: 0, maxEvents: 0, maxBytes: 0, maxSignals: 0 };
  for (const workflowId of deadLetterWorkflowIds(taskQueue, type)) {
    let ran = false;
    for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      ran = true;
      figures.runs += 1;
      const handle = client.workflow.getHandle(workflowId, run.runId);
      const description = await handle.describe();
      const history = await handle.fetchHistory();
      const events = history.events ?? [];
      const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
      figures.maxEvents = Math.max(figures.maxEvents, events.length);
      figures.maxSignals = Math.max(figures.maxSignals, signals);
      figures.maxBytes = Math.max(figures.maxBytes, Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0));
    }
    if (ran) figures.workflows += 1;
  }
  return figures;
}

/** Polls the live runs of a type's DLQ workflows, keeping the largest history seen (events, bytes). */
export function watchDlqRuns(client: Client, taskQueue: string, type: string, everyMs = 2000): { stop(): Promise<{ maxEvents: number; maxBytes: number }> } {
  const seen = { maxEvents: 0, maxBytes: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await Promise.all(
        deadLetterWorkflowIds(taskQueue, type).map(async (id) => {
          const d = await client.workflow.getHandle(id).describe().catch(() => undefined);
          if (!d) return;
          seen.maxEvents = Math.max(seen.maxEvents, d.historyLength);
          seen.maxBytes = Math.max(seen.maxBytes, Number(d.raw.workflowExecutionInfo?.historySizeBytes ?? 0));
        }),
      );
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return seen;
    },
  };
}

/** Runs `task` over `items` with at most `concurrency` at once. */
export async function inParallel<T>(items: T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await task(items[next++]!);
  }));
}
