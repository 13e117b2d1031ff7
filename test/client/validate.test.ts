import assert from 'node:assert/strict';
import { validateOptions, validatePayload as validateIn } from '../../src/catalog/validate';
import { catalog } from '../../src/jobs/catalog';

// As the client validates before it enqueues: keys the schema does not know are refused.
const validatePayload = (type: string, payload: unknown) => validateIn(catalog, type, payload, 'refuse');
import { InvalidOptionError, InvalidPayloadError } from '../../src/shared/errors';
import { maxJobIdLength, maxPayloadBytes } from '../../src/shared/limits';

const email = { to: 'ada@example.com', subject: 'Hello', body: 'Hi', userId: 'u1' };

/** The issue paths and messages a rejected input names, or `[]` when it is accepted. */
function issues(run: () => unknown): string[] {
  try {
    run();
    return [];
  } catch (err) {
    assert.ok(err instanceof InvalidOptionError || err instanceof InvalidPayloadError, String(err));
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

describe('enqueue bounds (validateOptions, validatePayload)', () => {
  it('accepts job IDs of the allow-list up to the length limit', () => {
    for (const id of ['hello-1', 'payment:order-1001', 'welcome:ada@example.com', 'a/b.c_d+e=f', 'x'.repeat(maxJobIdLength)]) {
      assert.deepEqual(issues(() => validateOptions({ id })), [], id);
    }
  });

  it('rejects empty, over-long, control, bidi, lone-surrogate and space-carrying IDs, naming id', () => {
    for (const id of ['', 'x'.repeat(maxJobIdLength + 1), 'a\u0007b', 'evil\u001b[31m', 'a\u202eb', 'a\ud800b', 'has space', 'line\nbreak']) {
      const found = issues(() => validateOptions({ id }));
      assert.equal(found.length, 1, JSON.stringify(id));
      assert.match(found[0]!, /^id: must be 1 to 200 characters of A-Z, a-z, 0-9 and \. _ : @ \/ \+ = -$/);
    }
  });

  it('caps the delay at 365 days', () => {
    assert.deepEqual(issues(() => validateOptions({ delay: '365d' })), []);
    assert.deepEqual(issues(() => validateOptions({ delay: '366d' })), ['delay: must be at most 365 days']);
  });

  it('rejects line breaks in mail header fields and over-long strings, naming each field', () => {
    const found = issues(() => validatePayload('send-email', { ...email, subject: 'Hi\r\nBcc: victim@example.com', userId: 'u\n1' }));
    assert.deepEqual(found, ['payload.subject: must not contain line breaks', 'payload.userId: must not contain line breaks']);
    assert.deepEqual(issues(() => validatePayload('send-email', { ...email, body: 'x'.repeat(100_001) })), ['payload.body: must be at most 100000 characters']);
    const payment = { paymentId: 'p', fromAccount: 'a'.repeat(129), toAccount: 'b', amount: 1, currency: 'EUR' };
    assert.deepEqual(issues(() => validatePayload('process-payment', payment)), ['payload.fromAccount: must be at most 128 characters']);
    assert.deepEqual(issues(() => validatePayload('process-payment', { ...payment, fromAccount: 'a', paymentId: 'order 1' })), [
      'payload.paymentId: must use only A-Z, a-z, 0-9 and . _ : @ / + = - (it becomes part of the job ID)',
    ]);
  });

  it('names every bad field at once, cross-field checks included, but not a cross-field check of a field already named', () => {
    assert.deepEqual(issues(() => validatePayload('generate-report', { from: '2026-01-01', to: '2025-01-01', format: 'xml' })), [
      'payload.format: Invalid option: expected one of "csv"|"json"',
      'payload.to: must be after from',
    ]);
    assert.deepEqual(issues(() => validatePayload('process-payment', { paymentId: 'p1', fromAccount: 'a', toAccount: 'a', amount: -1, currency: 'EUR' })), [
      'payload.amount: must be greater than 0',
      'payload.toAccount: must differ from fromAccount',
    ]);
    assert.deepEqual(issues(() => validatePayload('send-email', { to: 'bad', subject: 'x', userId: 'u' })), [
      'payload.to: must be a valid email address',
      'payload.body: give exactly one of body or template',
    ]);
    assert.deepEqual(issues(() => validatePayload('generate-report', { from: 'nope', to: '2025-01-01' })).map((i) => i.split(':')[0]), ['payload.from']);
  });

  it('requires every variable of the named template, naming the missing ones (a typo would send a blank)', () => {
    const withTemplate = (template: unknown) => issues(() => validatePayload('send-email', { ...email, body: undefined, template }));
    assert.deepEqual(withTemplate({ name: 'password-reset', vars: { nmae: 'Ada', link: 'https://x' } }), ['payload.template.vars.name: is required by the password-reset template']);
    assert.deepEqual(withTemplate({ name: 'welcome' }), ['payload.template.vars.name: is required by the welcome template']);
    assert.deepEqual(withTemplate({ name: 'welcome', vars: { name: 'Ada', extra: 'kept' } }), []);
  });

  it('names the accounts check even when the amount is not a whole number', () => {
    assert.deepEqual(issues(() => validatePayload('process-payment', { paymentId: 'p1', fromAccount: 'a', toAccount: 'a', amount: 1.5, currency: 'EUR' })), [
      'payload.amount: must be a whole number of minor units, e.g. 1250 for 12.50',
      'payload.toAccount: must differ from fromAccount',
    ]);
    assert.deepEqual(issues(() => validatePayload('send-email', [])), ['payload: Invalid input: expected object, received array']);
  });

  it('rejects unknown keys in nested objects too, naming them', () => {
    const found = issues(() => validatePayload('send-email', { ...email, body: undefined, template: { name: 'welcome', var: { name: 'Ada' } } }));
    assert.ok(found.some((issue) => /^payload\.template: .*"var"/.test(issue)), found.join(' | '));
  });

  it('bounds the error text: a 60 KB key is not echoed back whole, and many issues are counted, not listed', () => {
    const key = 'k'.repeat(60_000);
    const [one, ...rest] = issues(() => validatePayload('noop', { [key]: 1 }));
    assert.equal(rest.length, 0);
    assert.ok(one!.length < 500, `issue of ${one!.length} characters`);
    assert.match(one!, /^payload: .*\(\d+ characters\)$/);
    const many = issues(() => validatePayload('noop', Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`x${i}`, 1]))));
    assert.ok(many.length <= 21, `${many.length} issues listed`);
    assert.ok(many.length === 1 || /and \d+ more issue/.test(many.at(-1)!), many.join(' | '));
  });

  it('caps the whole payload under Temporal’s limit, before anything is enqueued', () => {
    const vars = (value: string) => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [i === 0 ? 'name' : `v${i}`, value.repeat(2000)]));
    // 50 values of 2,000 characters each pass the field limits: 100 KB in ASCII, 300 KB as '€'.
    assert.deepEqual(issues(() => validatePayload('send-email', { ...email, body: undefined, template: { name: 'welcome', vars: vars('x') } })), []);
    const found = issues(() => validatePayload('send-email', { ...email, body: undefined, template: { name: 'welcome', vars: vars('€') } }));
    assert.equal(found.length, 1);
    assert.match(found[0]!, new RegExp(`^payload: is \\d+ bytes as JSON; the limit is ${maxPayloadBytes}$`));
  });
});
