import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { askBreaker, readBreaker, sendToBreaker } from '../../src/catalog/breaker-calls';
import type { BreakerReport } from '../../src/catalog/breaker-state';
import { planDependencies, type DependencyPlan } from '../../src/catalog/dependency-plan';
import { catalog } from '../../src/jobs/catalog';
import { startTimeSkippingEnv } from '../../src/testing';
import { bundleWorkflows, createTestWorker, uniqueId } from '../helpers/env';

// The breaker workflow of the built-in `smtp` dependency (5 failures within 30 s, 10 s cool-down),
// driven as workers drive it (reports and admissions), on the time-skipping server.
describe('a dependency’s breaker workflow: turns and probes (time-skipping)', function () {
  this.timeout(240_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;

  before(async () => {
    env = await startTimeSkippingEnv();
    bundle = await bundleWorkflows();
  });
  after(() => env?.teardown());

  async function breaker(run: (calls: { smtp: DependencyPlan; taskQueue: string; report: (outcome: BreakerReport['outcome'], jobId: string) => Promise<unknown>; ask: (jobId: string, waitMs?: number) => ReturnType<typeof askBreaker> }) => Promise<void>) {
    const taskQueue = uniqueId('tq-breaker');
    const worker = await createTestWorker(env, bundle, { taskQueue });
    const [smtp] = planDependencies(taskQueue, catalog.definitions);
    const report = (outcome: BreakerReport['outcome'], jobId: string) => sendToBreaker(env.client, taskQueue, smtp!, { report: { outcome, jobId, errorType: 'send-email:smtp-transient', message: 'ECONNREFUSED', settings: smtp!.settings } });
    const ask = (jobId: string, waitMs = 24_000) => askBreaker(env.client, taskQueue, smtp!, { jobId, waitMs, leaseMs: 30_000 });
    await worker.runUntil(run({ smtp: smtp!, taskQueue, report, ask }));
  }

  it('after a counted failure, admits one attempt at a time: the next is admitted when the first reports', async () => {
    await breaker(async ({ report, ask, smtp, taskQueue }) => {
      await report('failure', 'first');
      assert.equal((await readBreaker(env.client, taskQueue, smtp)).suspect, true);
      assert.equal((await ask('a')).admitted, true);
      let second: boolean | undefined;
      const waiting = ask('b').then((a) => (second = a.admitted));
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(second, undefined, 'b waits while a’s turn lasts');
      await report('success', 'a');
      await waiting;
      assert.equal(second, true, 'a reported: b’s turn');
      assert.equal((await readBreaker(env.client, taskQueue, smtp)).suspect, undefined, 'a’s success ended the suspicion');
    });
  });

  it('an attempt waiting when the breaker opens is admitted as the probe after the cool-down; one whose wait runs out first is refused', async () => {
    await breaker(async ({ report, ask, smtp, taskQueue }) => {
      for (let i = 0; i < 4; i++) {
        if (i > 0) assert.equal((await ask(`f${i}`)).admitted, true);
        await report('failure', `f${i}`);
      }
      assert.equal((await ask('last')).admitted, true);
      const short = ask('short', 5_000);
      const long = ask('long');
      await report('failure', 'last');
      assert.equal((await readBreaker(env.client, taskQueue, smtp)).state, 'open');
      await env.sleep(11_000);
      const [shortAnswer, longAnswer] = await Promise.all([short, long]);
      assert.equal(shortAnswer.admitted, false, 'its 5 s ran out while open');
      assert.equal(shortAnswer.view.state, 'open');
      assert.equal(longAnswer.admitted, true, 'admitted once the cool-down passed');
      assert.equal(longAnswer.view.state, 'half-open');
      assert.equal((await ask('another', 1_000)).admitted, false, 'the probe is the only attempt while half-open');
      await report('success', 'long');
      assert.equal((await readBreaker(env.client, taskQueue, smtp)).state, 'closed');
    });
  });

  it('a probe whose report never comes fails with its lease: the breaker opens again for twice as long', async () => {
    await breaker(async ({ report, ask, smtp, taskQueue }) => {
      for (let i = 0; i < 5; i++) await report('failure', `f${i}`);
      await env.sleep(11_000);
      const probe = await ask('lost');
      assert.equal(probe.admitted, true);
      assert.equal(probe.view.state, 'half-open');
      await env.sleep(31_000);
      const view = await readBreaker(env.client, taskQueue, smtp);
      assert.equal(view.state, 'open');
      assert.equal(view.coolDownMs, 20_000);
      assert.match(view.why, /the probe \(job lost\) sent no report within its lease/);
    });
  });
});
