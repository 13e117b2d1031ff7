import assert from 'node:assert/strict';
import path from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { startCodecServer, type CodecServer } from '../../src/client/codec-server';
import { EncryptionCodec } from '../../src/shared/encryption-codec';
import { newKeyEntry, parseKeyRing } from '../../src/shared/encryption-keys';
import { repoRoot } from '../helpers/env';
import { freePort, runCommand, startProcess } from '../helpers/processes';

const ui = 'http://127.0.0.1:8233';
const wire = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

describe('codec server', () => {
  const key = newKeyEntry('k1');
  const codec = new EncryptionCodec(parseKeyRing(key, 'test'));
  let server: CodecServer;
  before(async () => {
    server = await startCodecServer({ codecs: [codec], port: 0, origins: [ui] });
  });
  after(() => server.close());

  const post = (path: string, body: unknown, origin?: string) =>
    fetch(server.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(origin ? { Origin: origin } : {}) }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('decodes for the Web UI origin, with CORS headers, and encodes back', async () => {
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload({ secret: 'plaintext-42' })!]);
    const res = await post('/decode', { payloads: [wire(encrypted!)] }, ui);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), ui);
    const body = (await res.json()) as { payloads: { data: string }[] };
    assert.deepEqual(JSON.parse(Buffer.from(body.payloads[0]!.data, 'base64').toString()), { secret: 'plaintext-42' });

    const encoded = (await (await post('/encode', body, ui)).json()) as { payloads: { data: string }[] };
    assert.ok(!Buffer.from(encoded.payloads[0]!.data, 'base64').includes('plaintext-42'));
  });

  it('answers the browser preflight for the allowed origin and refuses any other origin', async () => {
    const preflight = await fetch(server.url + '/decode', { method: 'OPTIONS', headers: { Origin: ui, 'Access-Control-Request-Method': 'POST' } });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-Namespace/);
    const refused = await post('/decode', { payloads: [] }, 'http://evil.example');
    assert.equal(refused.status, 403);
    assert.match(((await refused.json()) as { message: string }).message, /origin http:\/\/evil.example may not use this codec server/);
  });

  it('names what is wrong with a request: a malformed body, an unknown path, a payload it has no key for', async () => {
    assert.equal((await post('/decode', '{not json')).status, 400);
    assert.equal((await post('/decode', { nope: 1 })).status, 400);
    assert.equal((await post('/other', { payloads: [] })).status, 404);
    const [foreign] = await new EncryptionCodec(parseKeyRing(newKeyEntry('k9'), 'test')).encode([defaultPayloadConverter.toPayload('x')!]);
    const res = await post('/decode', { payloads: [wire(foreign!)] });
    assert.equal(res.status, 422);
    assert.match(((await res.json()) as { message: string }).message, /jobs:codec-unknown-key: .*key "k9"/);
  });

  describe('jobctl codec-server', () => {
    const jobctl = path.join(repoRoot, 'bin/jobctl.js');
    const env = (extra: NodeJS.ProcessEnv) => ({ ...process.env, ENCRYPTION_KEYS: key, ENCRYPTION_KEY_FILE: undefined, CODEC_SERVER_PORT: undefined, ...extra });

    it('names --port for a bad --port, and CODEC_SERVER_PORT for a bad CODEC_SERVER_PORT, exit 2', async () => {
      for (const bad of ['70000', '0', '80x', '-1']) {
        const ran = await runCommand(process.execPath, [jobctl, 'codec-server', `--port=${bad}`], env({ CODEC_SERVER_PORT: '8234' }));
        assert.equal(ran.code, 2, ran.stderr);
        assert.equal(ran.stderr.trim(), `--port: must be a port, a whole number from 1 to 65535, got "${bad}"`);
      }
      const fromEnv = await runCommand(process.execPath, [jobctl, 'codec-server'], env({ CODEC_SERVER_PORT: '70000' }));
      assert.equal(fromEnv.code, 2, fromEnv.stderr);
      assert.match(fromEnv.stderr, /^jobs:invalid-config: invalid configuration: CODEC_SERVER_PORT: .*\(got "70000"\)/);
      assert.doesNotMatch(fromEnv.stderr, /--port/);
    });

    it('names --port (or CODEC_SERVER_PORT) when that port is taken, exit 2', async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const { port } = taken.address() as AddressInfo;
      try {
        const flag = await runCommand(process.execPath, [jobctl, 'codec-server', '--port', String(port)], env({}));
        assert.equal(flag.code, 2, flag.stderr);
        assert.equal(flag.stderr.trim(), `jobs:invalid-config: invalid configuration: --port: 127.0.0.1:${port} is already in use; choose another --port`);
        const fromEnv = await runCommand(process.execPath, [jobctl, 'codec-server'], env({ CODEC_SERVER_PORT: String(port) }));
        assert.equal(fromEnv.code, 2, fromEnv.stderr);
        assert.match(fromEnv.stderr, /CODEC_SERVER_PORT: 127\.0\.0\.1:\d+ is already in use; choose another CODEC_SERVER_PORT/);
      } finally {
        taken.close();
      }
    });

    it('serves on the --port given, over CODEC_SERVER_PORT', async () => {
      const port = await freePort();
      const server = startProcess(process.execPath, [jobctl, 'codec-server', '--port', String(port)], env({ CODEC_SERVER_PORT: 'not-used' }));
      try {
        await server.waitFor(`codec server on http://127.0.0.1:${port}`, 30_000);
        const res = await fetch(`http://127.0.0.1:${port}/decode`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ payloads: [] }) });
        assert.equal(res.status, 200);
      } finally {
        server.child.kill('SIGINT');
        assert.equal(await server.exited, 0, server.output());
      }
    });
  });
});
