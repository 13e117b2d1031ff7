import assert from 'node:assert/strict';
import type { JobDefinition } from '../../src/catalog/define-job';
import { catalog } from '../../src/jobs/catalog';

const registry = Object.fromEntries(catalog.definitions.map((d) => [d.type, d])) as Record<'send-email' | 'process-payment', JobDefinition>;
import { defaultConcurrency, planQueues, taskQueueFor } from '../../src/catalog/task-queues';
import { defineCatalog, type Catalog } from '../../src/catalog';
import { loadConfig } from '../../src/shared/config';
import { servedQueues } from '../../src/worker/create-worker';

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

  it('always plans the shared queue, with no type when every type has a queue of its own: the DLQs, windows and limiter run there', () => {
    const plans = planQueues('q', [registry['send-email']]);
    assert.deepEqual(plans.map((p) => [p.taskQueue, p.shared, p.types]), [['q:email', false, ['send-email']], ['q', true, []]]);
  });

  it('a worker serves the shared queue when a chosen type is on it or no type is, and leaves it to those types\' workers otherwise', () => {
    const config = (workerJobTypes?: string) => loadConfig({ dataDir: '/tmp/unused', taskQueue: 'q', ...(workerJobTypes ? { workerJobTypes } : {}) }, {});
    const served = (c: Catalog, types?: string) => servedQueues({ catalog: c }, config(types)).map((p) => p.taskQueue);
    assert.deepEqual(served(catalog), ['q:email', 'q']);
    assert.deepEqual(served(catalog, 'send-email'), ['q:email'], 'the workers of the shared types serve it');
    assert.deepEqual(served(catalog, 'noop'), ['q']);
    const ownOnly = defineCatalog({ jobs: [registry['send-email']], payloads: { 'send-email': catalog.payloads['send-email'] } });
    assert.deepEqual(served(ownOnly), ['q:email', 'q']);
    assert.deepEqual(served(ownOnly, 'send-email'), ['q:email', 'q']);
  });

  it('lets types share a queue of their own only with the same limits', () => {
    const sms = { ...registry['send-email'], type: 'send-sms', queue: { name: 'email', concurrency: 20, rateLimit: 5 } };
    assert.throws(() => planQueues('q', [registry['send-email'], sms]), /job types send-email and send-sms share task queue q:email but declare different limits/);
    const same = { ...sms, queue: registry['send-email'].queue };
    assert.deepEqual(planQueues('q', [registry['send-email'], same])[0]!.types, ['send-email', 'send-sms']);
  });
});
