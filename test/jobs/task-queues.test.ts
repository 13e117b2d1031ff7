import assert from 'node:assert/strict';
import type { JobDefinition } from '../../src/catalog/define-job';
import { catalog } from '../../src/jobs/catalog';

const registry = Object.fromEntries(catalog.definitions.map((d) => [d.type, d])) as Record<'send-email' | 'process-payment', JobDefinition>;
import { defaultConcurrency, planQueues, taskQueueFor } from '../../src/catalog/task-queues';

describe('task queues of job types', () => {
  const all = catalog.definitions;

  it('puts send-email on a queue of its own and the other types on the shared queue', () => {
    assert.equal(taskQueueFor('durable-jobs', registry['send-email']), 'durable-jobs:email');
    assert.equal(taskQueueFor('durable-jobs', registry['process-payment']), 'durable-jobs');
    const plans = planQueues('durable-jobs', all);
    assert.deepEqual(
      plans.map((p) => [p.taskQueue, p.shared, p.types, p.concurrency, p.rateLimit]),
      [
        ['durable-jobs:email', false, ['send-email'], 20, undefined],
        ['durable-jobs', true, ['process-payment', 'generate-report', 'sync-data', 'noop'], defaultConcurrency, undefined],
      ],
    );
  });

  it('lets types share a queue of their own only with the same limits', () => {
    const sms = { ...registry['send-email'], type: 'send-sms', queue: { name: 'email', concurrency: 20, rateLimit: 5 } };
    assert.throws(() => planQueues('q', [registry['send-email'], sms]), /job types send-email and send-sms share task queue q:email but declare different limits/);
    const same = { ...sms, queue: registry['send-email'].queue };
    assert.deepEqual(planQueues('q', [registry['send-email'], same])[0]!.types, ['send-email', 'send-sms']);
  });
});
