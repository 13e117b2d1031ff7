import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { catalog } from '../../src/jobs/catalog';
import { ConfigError } from '../../src/shared/errors';
import { checkWorkflowExports } from '../../src/worker/check-workflows';

describe('checkWorkflowExports', () => {
  it('accepts the built-in workflows module', () => {
    checkWorkflowExports(require.resolve('../../src/workflows'), catalog);
  });

  it("names each catalog job's workflow that the module does not export, and asks for none of the library's (the worker adds them)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'workflows-'));
    const file = path.join(dir, 'workflows.js');
    await writeFile(file, 'exports.sendEmailWorkflow = async () => {};\n');
    assert.throws(
      () => checkWorkflowExports(file, catalog),
      (err: unknown) =>
        err instanceof ConfigError &&
        /exports no processPaymentWorkflow, the workflow of job type process-payment/.test(err.message) &&
        !/deadLetterWorkflow|concurrencyLimiterWorkflow|debounceJobWorkflow|dedupeJobWorkflow/.test(err.message) &&
        !/exports no sendEmailWorkflow/.test(err.message),
    );
  });

  it('names a step whose preset its job does not declare (a typo the compiler cannot see through jobActivities<Activities>)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'workflows-'));
    const file = path.join(dir, 'workflows.js');
    await writeFile(file, `const { jobActivities } = require(${JSON.stringify(require.resolve('../../src/workflow-kit/job-activities'))});\nconst { sendEmailJob } = require(${JSON.stringify(require.resolve('../../src/jobs/send-email'))});\njobActivities(sendEmailJob, 'sned');\n`);
    assert.throws(() => checkWorkflowExports(file, catalog), (err: unknown) => err instanceof ConfigError && /job type send-email declares no activity preset "sned"/.test(err.message));
  });

  it('leaves a module that cannot load outside the sandbox to the SDK', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'workflows-'));
    const file = path.join(dir, 'workflows.js');
    await writeFile(file, "throw new Error('needs the workflow sandbox');\n");
    checkWorkflowExports(file, catalog);
  });
});
