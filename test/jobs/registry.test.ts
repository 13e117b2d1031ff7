import assert from 'node:assert/strict';
import * as workflows from '../../src/workflows';
import { registry } from '../../src/jobs/registry';

describe('job registry', () => {
  for (const [key, definition] of Object.entries(registry)) {
    it(`${key}: key matches its type, and its workflow is exported from src/workflows`, () => {
      assert.equal(definition.type, key);
      assert.equal(typeof (workflows as Record<string, unknown>)[definition.workflowType], 'function');
    });
  }
});
