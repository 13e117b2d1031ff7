import assert from 'node:assert/strict';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { lastStepIn, needsLastStep, stateAtClose } from '../../src/client/closed-state-read';
import { jobOutlineMemoKey, jobOutlineOf } from '../../src/catalog/job-outline';
import { catalog } from '../../src/jobs/catalog';
import { jobHeaderName, jobHeaderPayload, type JobHeader } from '../../src/shared/job-header';
import { jobStateMemoKey } from '../../src/workflow-kit/job-state-names';
import { completedState } from '../../src/workflow-kit/closed-state';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const decoding = { payloadCodecs: [], payloadConverter: defaultPayloadConverter };
const outline = jobOutlineOf(catalog.definition('process-payment')!);
const completed = (memo: Record<string, unknown>) => ({ status: { name: 'COMPLETED' }, memo });

/** A scheduled activity event, as a history holds it. */
function scheduled(eventId: number, activityType: string, header?: JobHeader, input?: unknown): HistoryEvent {
  return {
    eventId: eventId as unknown as HistoryEvent['eventId'],
    activityTaskScheduledEventAttributes: {
      activityType: { name: activityType },
      ...(header ? { header: { fields: { [jobHeaderName]: jobHeaderPayload(header) } } } : {}),
      ...(input === undefined ? {} : { input: { payloads: [defaultPayloadConverter.toPayload(input)] } }),
    },
  };
}

describe('a closed job’s final state read from its history (closed-state-read)', () => {
  it('reads the newest step header of the tail, past the library’s own activities that carry no step', () => {
    const tail = [
      scheduled(12, 'durable-jobs.releaseConcurrencySlot', { execution: 'e' }),
      scheduled(8, 'capture', { execution: 'e', preset: 'main', step: 'capture' }),
      scheduled(5, 'reserve', { execution: 'e', preset: 'main', step: 'reserve' }),
    ];
    assert.deepEqual(lastStepIn(tail), { step: 'capture', preset: 'main' });
    assert.equal(lastStepIn([scheduled(5, 'greet')]), undefined, 'a step scheduled by an earlier release has no header');
  });

  it('derives a completed job’s state from its start’s outline and last step, as its workflow checked it', async () => {
    const tail = [scheduled(8, 'capture', { execution: 'e', preset: 'main', step: 'capture' })];
    const state = await stateAtClose(completed({ [jobOutlineMemoKey]: outline }), tail, decoding);
    assert.deepEqual(state, completedState(outline, { step: 'capture', preset: 'main' }));
  });

  it('reads a failed job’s state from the input of its hand-off to the DLQ, under either name of it', async () => {
    const reported = { step: 'capture', steps: outline.steps, preset: 'main', compensation: { status: 'done', undone: ['reserve'] } };
    for (const name of ['durable-jobs.handOffToDeadLetter', 'handOffToDeadLetter']) {
      const tail = [scheduled(20, name, undefined, { id: 'p1', type: 'process-payment', state: reported }), scheduled(8, 'capture', { execution: 'e', preset: 'main', step: 'capture' })];
      assert.deepEqual(await stateAtClose({ status: { name: 'FAILED' }, memo: {} }, tail, decoding), reported, name);
    }
  });

  it('leaves the state to the memo when the job wrote one, and has none for a job from before protocol 3 or a hand-off without it', async () => {
    const tail = [scheduled(8, 'capture', { execution: 'e', preset: 'main', step: 'capture' })];
    assert.equal(await stateAtClose(completed({ [jobStateMemoKey]: { step: 'x' }, [jobOutlineMemoKey]: outline }), tail, decoding), undefined);
    assert.equal(await stateAtClose(completed({}), tail, decoding), undefined, 'no outline in the start memo');
    assert.equal(await stateAtClose({ status: { name: 'FAILED' }, memo: {} }, [scheduled(20, 'handOffToDeadLetter', undefined, { id: 'p1' })], decoding), undefined);
    assert.equal(await stateAtClose({ status: { name: 'TERMINATED' }, memo: { [jobOutlineMemoKey]: outline } }, tail, decoding), undefined);
  });

  it('asks the tail to reach the last step only for a completed job that left its state to it', () => {
    assert.ok(needsLastStep(completed({ [jobOutlineMemoKey]: outline })));
    assert.ok(!needsLastStep(completed({ [jobOutlineMemoKey]: outline, [jobStateMemoKey]: { step: 'x' } })));
    assert.ok(!needsLastStep({ status: { name: 'FAILED' }, memo: { [jobOutlineMemoKey]: outline } }));
    assert.ok(!needsLastStep({ status: { name: 'RUNNING' }, memo: { [jobOutlineMemoKey]: outline } }));
  });
});
