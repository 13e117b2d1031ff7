import assert from 'node:assert/strict';
import * as workflows from '../../src/workflows';
import { catalog } from '../../src/jobs/catalog';
import { ErrorType } from '../../src/shared/errors';
import { GenerateReportErrorType } from '../../src/jobs/generate-report';
import { NoopErrorType } from '../../src/jobs/noop';
import { ProcessPaymentErrorType } from '../../src/jobs/process-payment';
import { SendEmailErrorType } from '../../src/jobs/send-email';
import { SyncDataErrorType } from '../../src/jobs/sync-data';

/** Each built-in type's own error types, as its module exports them. */
const ownErrorTypes: Record<string, Record<string, string>> = {
  'send-email': SendEmailErrorType,
  'process-payment': ProcessPaymentErrorType,
  'generate-report': GenerateReportErrorType,
  'sync-data': SyncDataErrorType,
  noop: NoopErrorType,
};

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

  it('declares each type’s error types in the type’s own namespace, not the library’s jobs:, and its presets refuse to retry the former jobs: names too', () => {
    const library = Object.values(ErrorType) as string[];
    assert.deepEqual(Object.keys(ownErrorTypes).sort(), catalog.definitions.map((d) => d.type).sort(), 'every built-in type is checked');
    for (const definition of catalog.definitions) {
      const own = Object.values(ownErrorTypes[definition.type]!).filter((type) => !library.includes(type));
      assert.ok(own.length > 0, definition.type);
      assert.deepEqual(own.filter((type) => !type.startsWith(`${definition.type}:`)), [], `${definition.type}'s error types outside its namespace`);
      for (const [name, preset] of Object.entries(definition.presets)) {
        const listed: readonly string[] = preset.nonRetryableErrorTypes ?? [];
        const missing = listed.filter((type) => type.startsWith(`${definition.type}:`) && !listed.includes(`jobs:${type.slice(definition.type.length + 1)}`));
        assert.deepEqual(missing, [], `${definition.type} preset ${name}: non-retryable types without their former jobs: name`);
      }
    }
  });
});
