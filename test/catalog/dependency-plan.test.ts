import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineCatalog } from '../../src/catalog/catalog';
import { CatalogError } from '../../src/catalog/catalog-error';
import { defineJob, type JobDefinition } from '../../src/catalog/define-job';
import type { JobDependency } from '../../src/catalog/dependency';
import { planDependencies } from '../../src/catalog/dependency-plan';
import { retrySchedule } from '../../src/shared/retry';
import { catalog as builtIn } from '../../src/jobs/catalog';

const job = (type: string, dependency: JobDependency | undefined, extra: Partial<JobDefinition> = {}) =>
  defineJob({
    type,
    workflowType: `${type.replace(/-/g, '')}Workflow`,
    description: type,
    presets: { run: { retry: retrySchedule('1s'), timeouts: { startToClose: '10s' }, ...(dependency ? { dependency } : {}) } },
    mainPreset: 'run',
    ...extra,
  } as JobDefinition);

function problems(jobs: JobDefinition[]): string[] {
  try {
    defineCatalog({ jobs, payloads: Object.fromEntries(jobs.map((j) => [j.type, z.object({})])) as never });
    return [];
  } catch (err) {
    assert.ok(err instanceof CatalogError, String(err));
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

describe('the dependencies a catalog’s presets name (src/catalog/dependency-plan.ts)', () => {
  it('plans one queue and one breaker per dependency, whatever types call it', () => {
    const provider: JobDependency = { name: 'payments-provider', concurrency: 5, rate: 20, breaker: { failures: 10 } };
    const plans = planDependencies('jobs', [job('charge', provider), job('refund', provider), job('ping', undefined)]);
    assert.deepEqual(plans.map((p) => [p.name, p.taskQueue, p.types, p.concurrency, p.settings.failures, p.settings.windowMs, p.settings.rate]), [['payments-provider', 'jobs:dependency:payments-provider', ['charge', 'refund'], 5, 10, 30_000, 20]]);
    assert.deepEqual(planDependencies('jobs', builtIn.definitions).map((p) => [p.name, p.types, p.concurrency]), [['smtp', ['send-email'], 20]]);
  });

  it('refuses a bad declaration, naming the field', () => {
    assert.deepEqual(problems([job('a', { name: 'bad name' })]), ['jobs.0 (a).presets.run.dependency.name: must be 1 to 63 letters, digits, - and _, starting with a letter or digit']);
    assert.deepEqual(problems([job('a', { name: 'x', concurrency: 0, rate: -1, countErrorTypes: [''], breaker: { failures: 1.5, window: 'soon', coolDown: 0 } })]), [
      'jobs.0 (a).presets.run.dependency.concurrency: must be a whole number of at least 1',
      'jobs.0 (a).presets.run.dependency.rate: must be a number of attempts per second, more than 0',
      'jobs.0 (a).presets.run.dependency.countErrorTypes: must be a list of error types',
      'jobs.0 (a).presets.run.dependency.breaker.failures: must be a whole number of at least 1',
      "jobs.0 (a).presets.run.dependency.breaker.window: must be a duration of more than 0, such as '30s' or '5m'",
      "jobs.0 (a).presets.run.dependency.breaker.coolDown: must be a duration of more than 0, such as '30s' or '5m'",
    ]);
    assert.deepEqual(problems([job('a', { name: 'x' }, { activity: 'local' })]), ["jobs.0 (a).presets.run.dependency: a dependency's steps run on its own task queue, which local activities cannot: declare activity: 'regular' for a"]);
  });

  it('refuses one dependency declared two ways', () => {
    assert.deepEqual(problems([job('a', { name: 'x', rate: 1 }), job('b', { name: 'x', rate: 2 })]), [
      'jobs.1 (b).presets.run.dependency: declares dependency x differently from jobs.0 (a).presets.run.dependency: declare it once (a const) and name it in both presets',
    ]);
    assert.deepEqual(problems([job('a', { name: 'x', countErrorTypes: ['p:a', 'p:b'] }), job('b', { name: 'x', countErrorTypes: ['p:b', 'p:a'] })]), []);
  });
});
