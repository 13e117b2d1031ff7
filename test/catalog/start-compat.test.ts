import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { jobStartOptions } from '../../src/catalog/start-job';
import { catalog } from '../../src/jobs/catalog';
import { payloadHashMemoKey } from '../../src/catalog/start-job';

// A job enqueued before the catalog opened must run on today's worker, and an enqueue today must
// find its twin from before (same ID, same payload: `existed`, not an ID conflict). Both hold when
// a job is started exactly as it was: the same workflow type, the same JobType search attribute
// (from which workflow code now reads the job's type) and the same payload hash in the memo. The
// recorded histories are jobs started by the code of their day.
const dir = path.resolve(__dirname, '../fixtures/histories');
const decode = (p: { data?: string } | undefined) => (p?.data ? JSON.parse(Buffer.from(p.data, 'base64').toString('utf8')) : undefined);

describe('job start options against recorded histories', () => {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const history = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    const start = history.events[0].workflowExecutionStartedEventAttributes;
    const definition = catalog.byWorkflowType(start.workflowType.name);
    const recordedType = decode(start.searchAttributes?.indexedFields?.JobType);
    if (!definition || recordedType === undefined) continue; // the DLQ, and jobs from before the JobType attribute
    it(`${file}: today's start of the same payload matches the recorded one`, () => {
      const payload = decode(start.input.payloads[0]);
      const options = jobStartOptions({ definition, payload, taskQueue: start.taskQueue.name });
      assert.equal(options.workflowType, start.workflowType.name);
      assert.equal(options.typedSearchAttributes[0]?.value, recordedType);
      assert.equal(definition.type, recordedType, 'the catalog names the type the job was started with');
      assert.equal(options.memo[payloadHashMemoKey], decode(start.memo.fields[payloadHashMemoKey]));
    });
  }
});
