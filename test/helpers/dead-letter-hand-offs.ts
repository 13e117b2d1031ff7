import type { Client } from '@temporalio/client';
import { sendDeadLetters } from '../../src/activity-kit/dead-letter';
import { HandOffBatcher } from '../../src/activity-kit/hand-off-batcher';
import { deadLetterShardOf, deadLetterShardWorkflowId } from '../../src/catalog/dead-letter-shards';
import type { DeadLetterInput } from '../../src/workflow-kit/dead-letter-entries';

/** The failure of `handed-<i>`, as a job's hand-off sends it: one fingerprint (`f-gone`) for all. */
export function handOff(type: string, i: number): DeadLetterInput {
  const id = `handed-${i}`;
  return {
    id, type, runId: `run-${id}`, payload: { note: `n${i}` }, attempts: 2, failedAt: new Date(Date.UTC(2026, 11, 1, 0, 0, i)).toISOString(),
    error: { type: 'fixture:gone', message: `upstream ${i} is gone` }, fingerprint: 'f-gone', fingerprintText: 'fixture:gone: upstream <n> is gone',
  };
}

/** Hands `handed-<from>` … `handed-<to - 1>` of `type` to the DLQ on `taskQueue`, batched as workers send them. */
export async function handOver(client: Client, taskQueue: string, type: string, from: number, to: number): Promise<void> {
  const batcher = new HandOffBatcher<DeadLetterInput>({ send: (workflowId, entries) => sendDeadLetters(client, taskQueue, workflowId, entries) });
  await Promise.all(Array.from({ length: to - from }, (_, k) => batcher.submit(deadLetterShardWorkflowId(taskQueue, type, deadLetterShardOf(`handed-${from + k}`)), handOff(type, from + k))));
}
