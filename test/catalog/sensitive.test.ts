import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineCatalog } from '../../src/catalog';
import { maskSensitive, scrubSensitive } from '../../src/catalog/sensitive';
import { defineJob, retrySchedule } from '../../src/workflow-kit';

const hook = (sensitive: unknown) =>
  defineJob({ type: 'deliver-hook', workflowType: 'deliverHookWorkflow', description: 'Deliver a webhook', presets: { send: { retry: retrySchedule('1s'), timeouts: { startToClose: '10s' } } }, mainPreset: 'send', sensitive: sensitive as string[] });
const payloads = { 'deliver-hook': z.object({ url: z.string(), secret: z.string(), auth: z.object({ key: z.string() }).optional(), headers: z.array(z.object({ value: z.string() })).optional() }) };

describe('sensitive payload fields', () => {
  it('masks fields by path, nested and through arrays, leaving the payload itself as it was', () => {
    const payload = { url: 'https://x.example', secret: 's3cr3t-value', auth: { key: 'k-123456' }, headers: [{ value: 'h-1111' }, { value: 'h-2222' }] };
    const masked = maskSensitive(payload, ['secret', 'auth.key', 'headers.value', 'absent.field']);
    assert.deepEqual(masked, { url: 'https://x.example', secret: '[sensitive]', auth: { key: '[sensitive]' }, headers: [{ value: '[sensitive]' }, { value: '[sensitive]' }] });
    assert.equal(payload.secret, 's3cr3t-value');
    assert.equal(maskSensitive(payload, undefined), payload);
  });

  it('replaces quotes of sensitive values in a message, longest first; short values are left (they would mask words)', () => {
    const payload = { secret: 's3cr3t-value', auth: { key: 'abc' } };
    assert.equal(scrubSensitive('refused s3cr3t-value (and s3cr3t-value again), key abc', payload, ['secret', 'auth.key']), 'refused [sensitive] (and [sensitive] again), key abc');
  });

  it('replaces a value quoted JSON-escaped, URL-encoded, in base64, in another case, or cut short at the end of a message', () => {
    const quoted = (token: string, text: string) => scrubSensitive(text, { secret: token }, ['secret']);
    assert.equal(quoted('abc"def\\ghi12', `{"error":"bad token ${JSON.stringify('abc"def\\ghi12').slice(1, -1)}"}`), '{"error":"bad token [sensitive]"}');
    const odd = 'a+b/c=d e&f-ENCODE';
    assert.equal(quoted(odd, `url=${encodeURIComponent(odd)} b64=${Buffer.from(odd).toString('base64')} upper=${odd.toUpperCase()}`), 'url=[sensitive] b64=[sensitive] upper=[sensitive]');
    assert.equal(quoted('user:pa55word', `Authorization: Basic ${Buffer.from('user:pa55word').toString('base64')}`), 'Authorization: Basic [sensitive]');
    // A message cut at a length limit ends in the value's first characters (6 or more): masked.
    assert.equal(quoted('PADTOKEN-abcdefghijklmnop', 'xxxx token=PADTOKEN-abcdefghijklmn'), 'xxxx token=[sensitive]');
    assert.equal(quoted('PADTOKEN-abcdefghijklmnop', 'xxxx token=PADTOKEN-ab…'), 'xxxx token=[sensitive]…');
    assert.equal(quoted('PADTOKEN-abcdefghijklmnop', 'xxxx token=PADTO'), 'xxxx token=PADTO', 'five characters say too little to mask');
  });

  it('refuses a path the payload schema has no field of, or that is not a path, naming it', () => {
    assert.throws(() => defineCatalog({ jobs: [hook(['secret', 'token'])], payloads }), /jobs\.0 \(deliver-hook\)\.sensitive\.1: names token, which the payload schema has no field of \(fields: url, secret, auth, headers\)/);
    assert.throws(() => defineCatalog({ jobs: [hook(['secret', 'a..b', 7])], payloads }), /sensitive\.1: must be a payload field path such as token or auth\.secret, got "a\.\.b"[\s\S]*sensitive\.2: must be a payload field path/);
    assert.throws(() => defineCatalog({ jobs: [hook('secret')], payloads }), /sensitive: must be a list of payload field paths/);
    assert.doesNotThrow(() => defineCatalog({ jobs: [hook(['secret', 'auth.key', 'headers.value'])], payloads }));
  });
});
