import assert from 'node:assert/strict';
import { ServiceError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { ensureSearchAttributes, type SearchAttributeServices } from '../../src/shared/ensure-search-attributes';
import { MissingSearchAttributeError, missingSearchAttributeIn } from '../../src/shared/missing-search-attribute';

const { IndexedValueType } = temporal.api.enums.v1;

/** An error shaped as @grpc/grpc-js rejects a call with: `code`, `details` and `metadata`. */
function grpcError(code: number, name: string, details: string): Error {
  return Object.assign(new Error(`${code} ${name}: ${details}`), { code, details, metadata: {} });
}

/** The SDK's wrapping of a refused start, as `client.workflow.start` throws it. */
function refusedStart(details: string): ServiceError {
  return new ServiceError('Failed to start Workflow', { cause: grpcError(3, 'INVALID_ARGUMENT', details) });
}

/**
 * Operator and workflow services that answer from fixed functions. The refusals and the slow
 * visibility below are what Temporal Cloud (PERMISSION_DENIED on AddSearchAttributes) and servers
 * that register asynchronously answer; `temporal server start-dev` has no authorizer and registers
 * at once, so no server this suite can start produces them. Everything a real dev server does
 * produce is tested against one, in test/integration/bring-your-own-temporal.test.ts.
 */
function services(answers: {
  list: () => Record<string, number>;
  add?: () => void;
  query?: (query: string) => void;
}): SearchAttributeServices & { added: string[] } {
  const added: string[] = [];
  const operatorService = {
    listSearchAttributes: async () => ({ customAttributes: answers.list() }),
    addSearchAttributes: async (req: { searchAttributes?: Record<string, number> }) => {
      answers.add?.();
      added.push(...Object.keys(req.searchAttributes ?? {}));
      return {};
    },
  };
  const workflowService = {
    listWorkflowExecutions: async (req: { query?: string }) => {
      answers.query?.(req.query ?? '');
      return { executions: [] };
    },
  };
  return { operatorService, workflowService, added } as unknown as SearchAttributeServices & { added: string[] };
}

describe('ensureSearchAttributes and missingSearchAttributeIn', () => {
  it('recognizes a refused start over JobType in the wordings servers use, and nothing else', () => {
    for (const details of ['Namespace acme-jobs has no mapping defined for search attribute JobType', 'search attribute JobType is not defined', "invalid query: invalid expression: column name 'JobType' is not a valid search attribute"]) {
      const found = missingSearchAttributeIn(refusedStart(details), 'acme-jobs');
      assert.ok(found instanceof MissingSearchAttributeError, details);
      assert.deepEqual([found.type, found.attribute, found.attributeType, found.namespace, found.reason], ['jobs:missing-search-attribute', 'JobType', 'Keyword', 'acme-jobs', 'not-registered']);
    }
    assert.equal(missingSearchAttributeIn(refusedStart('search attribute OtherType is not defined'), 'ns'), undefined, 'an attribute that is not ours');
    assert.equal(missingSearchAttributeIn(refusedStart('invalid cron string JobType'), 'ns'), undefined, 'another INVALID_ARGUMENT');
    assert.equal(missingSearchAttributeIn(new ServiceError('x', { cause: grpcError(7, 'PERMISSION_DENIED', 'search attribute JobType is not defined') }), 'ns'), undefined, 'another code');
  });

  it('stops with the commands to run when the server does not permit registering (PERMISSION_DENIED, as Temporal Cloud)', async () => {
    const refusing = services({ list: () => ({}), add: () => { throw grpcError(7, 'PERMISSION_DENIED', 'Request unauthorized.'); } });
    const err = await ensureSearchAttributes(refusing, 'acme.a2dd6').then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof MissingSearchAttributeError);
    assert.equal(err.reason, 'not-permitted');
    assert.match(err.message, /^jobs:missing-search-attribute: the search attribute JobType \(Keyword\) is not registered on namespace "acme\.a2dd6", and this connection may not register it \(PERMISSION_DENIED: Request unauthorized\.\)/);
    assert.ok(err.message.includes('temporal operator search-attribute create --namespace acme.a2dd6 --name JobType --type Keyword'));
    assert.ok(err.message.includes('tcld namespace search-attributes add --namespace acme.a2dd6 --search-attribute "JobType=Keyword"'));
    assert.ok(err.cause instanceof Error, 'keeps the gRPC error as its cause');
  });

  it('falls back to a visibility query when listing is refused too (UNIMPLEMENTED), and then names the attribute', async () => {
    let defined = false;
    const queries: string[] = [];
    const locked = services({
      list: () => { throw grpcError(12, 'UNIMPLEMENTED', 'unknown method ListSearchAttributes'); },
      add: () => { throw grpcError(16, 'UNAUTHENTICATED', 'no credentials'); },
      query: (q) => {
        queries.push(q);
        if (!defined) throw grpcError(3, 'INVALID_ARGUMENT', "invalid query: invalid expression: column name 'JobType' is not a valid search attribute");
      },
    });
    await assert.rejects(ensureSearchAttributes(locked, 'ns'), (e: unknown) => e instanceof MissingSearchAttributeError && e.reason === 'not-permitted' && /UNAUTHENTICATED: no credentials/.test(e.message));
    assert.deepEqual(queries, ["JobType = ''"]);
    defined = true;
    assert.deepEqual(await ensureSearchAttributes(locked, 'ns'), { registered: [] }, 'present by the probe: nothing to register');
  });

  it('waits until a registration is listed, and times out naming the attribute when it never is', async () => {
    let listedAfter = 3;
    const slow = services({ list: (): Record<string, number> => (listedAfter-- > 0 ? {} : { JobType: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD }) });
    assert.deepEqual(await ensureSearchAttributes(slow, 'ns', { pollIntervalMs: 10 }), { registered: ['JobType'] });
    assert.deepEqual(slow.added, ['JobType']);

    const never = services({ list: () => ({}) });
    const started = Date.now();
    await assert.rejects(
      ensureSearchAttributes(never, 'ns', { timeoutMs: 300, pollIntervalMs: 50 }),
      (e: unknown) => e instanceof MissingSearchAttributeError && e.reason === 'not-visible' && /JobType \(Keyword\) was registered on namespace "ns", but the server did not list it within 0\.\ds/.test(e.message),
    );
    assert.ok(Date.now() - started >= 300, 'waited the whole timeout');
  });

  it('refuses an attribute registered with another type, without registering anything', async () => {
    const text = services({ list: () => ({ JobType: IndexedValueType.INDEXED_VALUE_TYPE_TEXT }) });
    await assert.rejects(ensureSearchAttributes(text, 'ns'), (e: unknown) => e instanceof MissingSearchAttributeError && e.reason === 'wrong-type' && /registered on namespace "ns" as Text, but jobs need Keyword/.test(e.message));
    assert.deepEqual(text.added, []);
  });
});
