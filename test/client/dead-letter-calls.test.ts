import assert from 'node:assert/strict';
import { isHandOver } from '../../src/client/dead-letter-calls';

describe('DLQ calls: what a retry outlives (isHandOver)', () => {
  it('retries an update the server refused because the workflow task failed or is failing, and what a hand-over answers', () => {
    for (const message of [
      '9 FAILED_PRECONDITION: Unable to perform workflow execution update due to Workflow Task in failed state.',
      '9 FAILED_PRECONDITION: update rejected: unexpected workflow task failure',
      'Workflow execution already completed',
      'workflow is closing',
    ]) {
      assert.equal(isHandOver(new Error('Workflow Update failed', { cause: new Error(message) })), true, message);
    }
  });

  it('does not retry what a retry cannot change', () => {
    for (const message of ['no dead-letter entry for job "x"', 'job "x" is discarded, not dead-lettered', '9 FAILED_PRECONDITION: Namespace is not active']) {
      assert.equal(isHandOver(new Error('Workflow Update failed', { cause: new Error(message) })), false, message);
    }
  });
});
