import assert from 'node:assert/strict';
import { normaliseFailureMessage } from '../../src/catalog/dead-letter';

// Failures of one cause must share a fingerprint whatever the values their messages quote.
describe('failure messages normalised for fingerprints', () => {
  const same = (messages: string[]) => {
    const normalised = new Set(messages.map(normaliseFailureMessage));
    assert.equal(normalised.size, 1, [...normalised].join(' | '));
    return [...normalised][0];
  };

  it('replaces quoted values, whatever quotes they hold', () => {
    assert.equal(same(['account "alice" does not exist', 'account "O\'Brien" does not exist', 'account "say \\"hi\\"" does not exist', 'account "" does not exist']), 'account <str> does not exist');
    assert.equal(same(["name 'bob' refused", "name 'O'Brien' refused", "name 'it\\'s' refused"]), 'name <str> refused');
    assert.equal(same(['{"to":"a@b.example","note":"x \\"y\\" z"} rejected', '{"to":"c@d.example","note":"w"} rejected']), '{<str>:<str>,<str>:<str>} rejected');
  });

  it('replaces numbers, UUIDs, addresses and long hex, and keeps what names the fault', () => {
    assert.equal(
      same(['timeout after 30s on 10.0.0.7 for 1b4e28ba-2fa1-11d2-883f-0016d3cca427 (0xdeadbeef)', 'timeout after 31s on 10.0.0.8 for 6fa459ea-ee8a-3ca4-894e-db77e160355e (0x1f)']),
      'timeout after <n>s on <n>.<n> for <uuid> (<hex>)',
    );
    assert.notEqual(normaliseFailureMessage('card declined'), normaliseFailureMessage('card expired'));
  });
});
