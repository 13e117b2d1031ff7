import assert from 'node:assert/strict';
import { listQuery } from '../../src/client/job-list';
import { catalog } from '../../src/jobs/catalog';

describe('jobs list query (listQuery)', () => {
  it("selects the catalog's workflows and leaves out runs that continued as new", () => {
    assert.equal(listQuery({}, { definitions: catalog.definitions.slice(0, 2) }), `WorkflowType IN ('${catalog.definitions[0]!.workflowType}', '${catalog.definitions[1]!.workflowType}') AND ExecutionStatus != 'ContinuedAsNew'`);
    assert.equal(listQuery({ status: 'timed-out' }), `JobType IS NOT NULL AND ExecutionStatus = 'TimedOut'`);
  });

  it('quotes a type and an ID prefix, escaping quotes and backslashes, and bounds the creation time', () => {
    const query = listQuery({ type: "a'b", idPrefix: `x' OR 1=1 OR WorkflowId = '\\`, createdFrom: new Date('2026-01-01T00:00:00Z'), createdBefore: new Date('2026-01-02T00:00:00Z') });
    assert.equal(
      query,
      `JobType = 'a\\'b' AND ExecutionStatus != 'ContinuedAsNew' AND WorkflowId STARTS_WITH 'x\\' OR 1=1 OR WorkflowId = \\'\\\\' AND StartTime >= '2026-01-01T00:00:00.000Z' AND StartTime < '2026-01-02T00:00:00.000Z'`,
    );
  });
});
