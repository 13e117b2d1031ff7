import assert from 'node:assert/strict';
import { z } from 'zod';
import { parseJobPayload } from '../../src/activity-kit/job-payload';
import { parseTolerant } from '../../src/catalog/unknown-keys';
import { validatePayload, validateRedrivePayload } from '../../src/catalog/validate';
import { catalog } from '../../src/jobs/catalog';
import { sendEmailPayload } from '../../src/jobs/payloads/send-email';
import { InvalidPayloadError } from '../../src/shared/errors';

// A send-email payload from a client one version ahead: a new top-level field and a new field
// inside the (strict) template.
const newer = { to: 'ada@example.com', subject: 'Hi', userId: 'u1', replyTo: 'desk@example.com', template: { name: 'welcome', vars: { name: 'Ada' }, locale: 'fr' } };
const known = { to: 'ada@example.com', subject: 'Hi', userId: 'u1', template: { name: 'welcome', vars: { name: 'Ada' } } };

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof InvalidPayloadError, String(err));
    return err.issues.map((i) => `${i.path}: ${i.message}`).join(' | ');
  }
  return assert.fail('accepted');
};

describe('payload fields a newer client added (unknown keys)', () => {
  it('the enqueuing client refuses them, at the top level and nested', () => {
    assert.equal(refusal(() => validatePayload(catalog, 'send-email', newer, 'refuse')), 'payload.template: Unrecognized key: "locale" | payload: Unrecognized key: "replyTo"');
  });

  it('a worker’s activity ignores them (strict nested objects included) and still refuses a real problem', () => {
    assert.deepEqual(parseJobPayload('send-email', sendEmailPayload, newer), known);
    assert.throws(() => parseJobPayload('send-email', sendEmailPayload, { ...newer, to: 'nobody' }), /payload\.to: must be a valid email address/);
  });

  it('a redrive’s restart keeps them, where they were, for a worker that knows them', () => {
    assert.deepEqual(validatePayload(catalog, 'send-email', newer), newer);
  });

  it('a patch may keep or change a field the entry already had, but not bring an unknown one (a typo)', () => {
    assert.deepEqual(validateRedrivePayload(catalog, 'send-email', newer, { subject: 'Again', template: { locale: 'de' } }), { ...newer, subject: 'Again', template: { ...newer.template, locale: 'de' } });
    assert.equal(refusal(() => validateRedrivePayload(catalog, 'send-email', newer, { subjet: 'Again' })), 'payload: Unrecognized key: "subjet"');
    assert.equal(refusal(() => validateRedrivePayload(catalog, 'send-email', newer, { template: { lcale: 'de' } })), 'payload.template: Unrecognized key: "lcale"');
  });

  it('a patch with an unknown key and another bad field is refused for both at once', () => {
    assert.equal(refusal(() => validateRedrivePayload(catalog, 'send-email', newer, { typo: 1 })), 'payload: Unrecognized key: "typo"');
    const both = refusal(() => validateRedrivePayload(catalog, 'send-email', newer, { to: 'nobody', typo: 1 }));
    assert.match(both, /payload\.to: must be a valid email address/);
    assert.match(both, /payload: Unrecognized key: "typo"/);
  });

  it('finds keys a lenient object drops too, inside arrays, and names each path', () => {
    const schema = z.object({ items: z.array(z.strictObject({ sku: z.string() })) });
    const parsed = parseTolerant(schema, { items: [{ sku: 'a', qty: 2 }], note: 'x' }, 'keep');
    assert.ok(parsed.success);
    assert.deepEqual(parsed.data, { items: [{ sku: 'a', qty: 2 }], note: 'x' });
    assert.deepEqual(parsed.unknownKeys.map((p) => p.join('.')).sort(), ['items.0.qty', 'note']);
  });
});
