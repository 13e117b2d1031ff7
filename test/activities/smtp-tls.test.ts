import assert from 'node:assert/strict';
import { requiresTls } from '../../src/activities/email';

describe('SMTP login over plain smtp://', () => {
  it('requires STARTTLS before a login to another machine, so the password never crosses the network in clear', () => {
    assert.equal(requiresTls('smtp://user:pw@mail.example.com:587'), true);
    assert.equal(requiresTls('smtp://token@10.0.0.5'), true);
  });

  it('leaves smtps://, loopback relays, logins-free URLs and an explicit opt-out alone', () => {
    assert.equal(requiresTls('smtps://user:pw@mail.example.com'), false);
    assert.equal(requiresTls('smtp://user:pw@127.0.0.1:2525'), false);
    assert.equal(requiresTls('smtp://user:pw@localhost'), false);
    assert.equal(requiresTls('smtp://mail.example.com:25'), false);
    assert.equal(requiresTls('smtp://user:pw@mail.internal?requireTLS=false'), false);
  });
});
