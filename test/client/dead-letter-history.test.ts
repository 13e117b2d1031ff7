import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { foldDeadLetterHistory } from '../../src/client/dead-letter-history';
import { historyFromJSON } from '../../src/worker/sdk-worker-internals';
import { repoRoot } from '../helpers/env';

const decoding = { payloadCodecs: [], payloadConverter: defaultPayloadConverter };
const events = (name: string) => historyFromJSON(JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/histories', `${name}.json`), 'utf8'))).events ?? [];

// Recorded histories of the DLQ workflow (test/fixtures/histories): a failed payment handed off,
// then redriven. Folding them must give what the workflow held, with no worker and no query.
describe('the DLQ state folded from its history', () => {
  for (const name of ['dead-letter-redrive', 'dead-letter-shard-redrive']) {
    it(`${name}: the hand-off makes an entry, the redrive's completion marks it redriven with the run it started`, async () => {
      const all = events(name);
      const state = await foldDeadLetterHistory(all, decoding);
      const [entry, ...others] = Object.values(state.entries);
      assert.equal(others.length, 0);
      assert.equal(entry!.status, 'redriven');
      assert.equal(entry!.type, 'process-payment');
      assert.deepEqual(entry!.audit.map((a) => a.action), ['dead-lettered', 'redrive']);
      assert.match(entry!.audit[1]!.result, /^started run [0-9a-f-]{36}$/);
      // Stamped with workflow time: the start of the workflow task the update completed in.
      const taskStarted = all.filter((e) => e.workflowTaskStartedEventAttributes).at(-1)!;
      assert.equal(entry!.audit[1]!.at, new Date(Number(String(taskStarted.eventTime!.seconds)) * 1000 + Math.floor((taskStarted.eventTime!.nanos ?? 0) / 1e6)).toISOString());

      // Before the update completed: the redrive is in flight.
      const accepted = all.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
      const inFlight = await foldDeadLetterHistory(all.slice(0, accepted + 1), decoding);
      assert.equal(Object.values(inFlight.entries)[0]!.status, 'redriving');
      // Before the update: dead-lettered, as the hand-off left it (even before a worker applied it).
      const handedOff = await foldDeadLetterHistory(all.slice(0, 2), decoding);
      assert.equal(Object.values(handedOff.entries)[0]!.status, 'dead-lettered');
    });
  }
});
