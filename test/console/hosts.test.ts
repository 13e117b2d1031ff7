import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { loadConsoleConfig } from '../../src/console/console-config';
import { hostGuard, hostNameOf, originRefusal, servedHostNames } from '../../src/console/hosts';
import { ConfigError } from '../../src/shared/errors';

describe('console: the names it answers to', () => {
  it('reads a Host header as a host name: lowercased, port and trailing dot dropped, IPv6 in brackets; anything else is none', () => {
    assert.equal(hostNameOf('127.0.0.1:7280'), '127.0.0.1');
    assert.equal(hostNameOf('LOCALHOST.:7280'), 'localhost');
    assert.equal(hostNameOf('[::1]:7280'), '[::1]');
    assert.equal(hostNameOf('Console.Corp.Test'), 'console.corp.test');
    for (const bad of ['', 'a b', 'user@localhost', 'localhost/x', 'localhost?x', '::1']) assert.equal(hostNameOf(bad), undefined, JSON.stringify(bad));
  });

  it('serves the loopback names on loopback and on every interface, its own address, and CONSOLE_ALLOWED_HOSTS', () => {
    assert.deepEqual([...servedHostNames({ host: '127.0.0.1', allowedHosts: [] })].sort(), ['127.0.0.1', '[::1]', 'localhost']);
    assert.deepEqual([...servedHostNames({ host: '0.0.0.0', allowedHosts: ['jobs.corp.test'] })].sort(), ['127.0.0.1', '[::1]', 'jobs.corp.test', 'localhost']);
    assert.deepEqual([...servedHostNames({ host: '10.0.0.5', allowedHosts: [] })], ['10.0.0.5']);
    assert.deepEqual([...servedHostNames({ host: 'fd00::5', allowedHosts: [] })], ['[fd00::5]']);
  });

  it('CONSOLE_ALLOWED_HOSTS takes comma-separated names (a port is ignored), and a bad one is an error naming the setting', () => {
    const before = process.env.CONSOLE_ALLOWED_HOSTS;
    try {
      process.env.CONSOLE_ALLOWED_HOSTS = ' Console.Corp.Test:443, 10.0.0.5 ,';
      assert.deepEqual(loadConsoleConfig().allowedHosts, ['console.corp.test', '10.0.0.5']);
      process.env.CONSOLE_ALLOWED_HOSTS = 'good.test,not a name';
      assert.throws(() => loadConsoleConfig(), (err: unknown) => err instanceof ConfigError && /CONSOLE_ALLOWED_HOSTS: must be host names, e\.g\. console\.example\.com,10\.0\.0\.5: got "not a name"/.test(err.message));
      for (const pattern of ['*', '.example.com', '*.example.com']) {
        process.env.CONSOLE_ALLOWED_HOSTS = `good.test,${pattern}`;
        assert.throws(() => loadConsoleConfig(), (err: unknown) => err instanceof ConfigError && err.message.includes(`takes exact host names, not patterns: got ${JSON.stringify(pattern)}`), pattern);
      }
    } finally {
      if (before === undefined) delete process.env.CONSOLE_ALLOWED_HOSTS;
      else process.env.CONSOLE_ALLOWED_HOSTS = before;
    }
  });

  describe('on a request', () => {
    const served = { host: '127.0.0.1', allowedHosts: ['console.corp.test'] };
    const app = new Hono();
    app.use(hostGuard(served));
    app.get('/healthz', (c) => c.text('ok'));
    app.all('*', (c) => c.text(originRefusal(c, served) ?? 'taken'));
    const send = (headers: Record<string, string>, method = 'POST', path = '/x') => app.request(`http://ignored${path}`, { method, headers });

    it('refuses any other Host with 421 (health checks excepted), and takes the served ones', async () => {
      for (const host of ['rebound.attacker.test:7280', '127.0.0.2:7280', '', 'localhost.attacker.test']) {
        const res = await send({ host }, 'GET');
        assert.equal(res.status, 421, host);
        const text = await res.text();
        assert.match(text, /CONSOLE_ALLOWED_HOSTS/);
        assert.doesNotMatch(text, /console\.corp\.test|localhost,/, 'the refusal names none of the names it serves');
      }
      assert.equal((await send({ host: 'rebound.attacker.test' }, 'GET', '/healthz')).status, 200);
      for (const host of ['127.0.0.1:7280', 'localhost:7280', '[::1]:7280', 'console.corp.test']) assert.equal((await send({ host, origin: `http://${host}` })).status, 200, host);
    });

    it('takes a change only from a page of the console: its Origin a served name on the request’s own host and port', async () => {
      const refused = async (headers: Record<string, string>) => (await (await send(headers)).text()) !== 'taken';
      assert.equal(await refused({ host: '127.0.0.1:7280', origin: 'http://127.0.0.1:7280' }), false);
      assert.equal(await refused({ host: 'console.corp.test', origin: 'https://console.corp.test' }), false, 'behind a TLS proxy, default ports');
      assert.equal(await refused({ host: '127.0.0.1:7280', 'sec-fetch-site': 'same-origin' }), false, 'Fetch Metadata alone');
      assert.equal(await refused({ host: '127.0.0.1:7280', origin: 'http://127.0.0.1:3000' }), true, 'another app on this machine');
      assert.equal(await refused({ host: '127.0.0.1:7280', origin: 'http://localhost:7280' }), true, 'another served name is another origin');
      assert.equal(await refused({ host: '127.0.0.1:7280', origin: 'null' }), true);
      assert.equal(await refused({ host: '127.0.0.1:7280' }), true, 'neither Origin nor Fetch Metadata');
      assert.equal(await refused({ host: '127.0.0.1:7280', referer: 'http://127.0.0.1:7280/' }), true, 'a Referer is not an Origin');
      assert.equal(await refused({ host: '127.0.0.1:7280', origin: 'http://127.0.0.1:7280', 'sec-fetch-site': 'cross-site' }), true);
    });
  });
});
