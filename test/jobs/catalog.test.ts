import assert from 'node:assert/strict';
import * as workflows from '../../src/workflows';
import { catalog } from '../../src/jobs/catalog';

describe('built-in catalog', () => {
  for (const definition of catalog.definitions) {
    it(`${definition.type}: has a schema, and its workflow is exported from src/workflows`, () => {
      assert.ok(catalog.payloads[definition.type as keyof typeof catalog.payloads], 'schema');
      assert.equal(catalog.byWorkflowType(definition.workflowType), definition);
      assert.equal(typeof (workflows as Record<string, unknown>)[definition.workflowType], 'function');
    });
  }

  it('exports only its own job types\' workflows: the worker adds the library\'s (the DLQ, windows, limiter)', () => {
    assert.deepEqual(Object.keys(workflows).sort(), catalog.definitions.map((d) => d.workflowType).sort());
  });
});
