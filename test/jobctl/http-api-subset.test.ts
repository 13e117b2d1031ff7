import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { fromJson } from '../../src/jobctl/http/api-messages';
import { HttpApiUnavailable } from '../../src/jobctl/http/http-api';
import { apiSubsetPath, buildApiSubset } from '../helpers/api-subset';

describe("the API subset jobctl's HTTP reads decode with", () => {
  it('is what the SDK\'s own definitions give today (after an SDK upgrade: npm run api-subset)', () => {
    assert.equal(readFileSync(apiSubsetPath, 'utf8'), buildApiSubset(), 'src/jobctl/http/api-subset.json is out of date: run npm run api-subset');
  });

  it('reads proto3 JSON times to the nanosecond, durations, int64s, enums and bytes as the gRPC decoder gives them, and leaves a form it does not know to gRPC', () => {
    const event = fromJson<temporal.api.history.v1.IHistoryEvent>('temporal.api.history.v1.HistoryEvent', {
      eventId: '9007199254740993',
      eventTime: '2026-12-02T17:16:29.374717533Z',
      eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
      workflowExecutionStartedEventAttributes: { workflowTaskTimeout: '10.5s', input: { payloads: [{ metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: 'eyJhIjoxfQ==' }] } },
    });
    assert.equal(String(event.eventId), '9007199254740993');
    assert.deepEqual({ seconds: String(event.eventTime?.seconds), nanos: event.eventTime?.nanos }, { seconds: '1796231789', nanos: 374717533 });
    assert.equal(event.eventType, temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
    const attributes = event.workflowExecutionStartedEventAttributes!;
    assert.deepEqual({ seconds: String(attributes.workflowTaskTimeout?.seconds), nanos: attributes.workflowTaskTimeout?.nanos }, { seconds: '10', nanos: 500_000_000 });
    assert.equal(Buffer.from(attributes.input!.payloads![0]!.data!).toString(), '{"a":1}');
    const offset = fromJson<temporal.api.history.v1.IHistoryEvent>('temporal.api.history.v1.HistoryEvent', { eventTime: '2026-12-02T18:16:29+01:00' });
    assert.equal(String(offset.eventTime?.seconds), '1796231789');
    assert.throws(() => fromJson('temporal.api.history.v1.HistoryEvent', { eventTime: 'yesterday' }), (err: Error) => err instanceof HttpApiUnavailable && /HistoryEvent: not an RFC 3339 time: "yesterday"/.test(err.message));
  });
});
