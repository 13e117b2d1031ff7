import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { dataConverterFor } from '../../src/shared/data-converter';
import { EncryptionCodec, KeylessCodec, keyIdMetadataKey } from '../../src/shared/encryption-codec';
import { loadKeyRing, newKeyEntry, parseKeyRing } from '../../src/shared/encryption-keys';
import { CodecError, ConfigError, ErrorType } from '../../src/shared/errors';

const marker = 'marker-7f3c2a-secret-reset-link';
const plain = (value: unknown): Payload => defaultPayloadConverter.toPayload(value)!;
const value = (payload: Payload): unknown => defaultPayloadConverter.fromPayload(payload);
const contains = (payload: Payload, text: string) => Buffer.from(payload.data ?? []).includes(text) || Object.values(payload.metadata ?? {}).some((m) => Buffer.from(m).includes(text));

describe('EncryptionCodec', () => {
  const k1 = newKeyEntry('k1');
  const k2 = newKeyEntry('k2');

  it('round-trips payloads and leaves no plaintext in the encoded bytes', async () => {
    const codec = new EncryptionCodec(parseKeyRing(k1, 'ENCRYPTION_KEYS'));
    const [encoded] = await codec.encode([plain({ link: marker })]);
    assert.ok(encoded);
    assert.equal(contains(encoded, marker), false);
    assert.equal(contains(encoded, 'json/plain'), false, 'the original encoding is encrypted too');
    assert.equal(Buffer.from(encoded.metadata![keyIdMetadataKey]!).toString(), 'k1');
    const [decoded] = await codec.decode([encoded]);
    assert.deepEqual(value(decoded!), { link: marker });
  });

  it('uses a fresh IV each time, so equal payloads encrypt differently', async () => {
    const codec = new EncryptionCodec(parseKeyRing(k1, 'ENCRYPTION_KEYS'));
    const [a, b] = await codec.encode([plain('same'), plain('same')]);
    assert.notDeepEqual(Buffer.from(a!.data!), Buffer.from(b!.data!));
  });

  it('after a rotation encrypts with the newest key and still decrypts the old one', async () => {
    const before = new EncryptionCodec(parseKeyRing(k1, 'ENCRYPTION_KEYS'));
    const after = new EncryptionCodec(parseKeyRing(`${k1},${k2}`, 'ENCRYPTION_KEYS'));
    const [old] = await before.encode([plain('old job')]);
    const [fresh] = await after.encode([plain('new job')]);
    assert.equal(Buffer.from(fresh!.metadata![keyIdMetadataKey]!).toString(), 'k2');
    assert.deepEqual((await after.decode([old!, fresh!])).map(value), ['old job', 'new job']);
  });

  it('names a missing key ID, and a wrong or altered key, without showing key material', async () => {
    const [encoded] = await new EncryptionCodec(parseKeyRing(k1, 'ENCRYPTION_KEYS')).encode([plain(marker)]);
    await assert.rejects(new EncryptionCodec(parseKeyRing(k2, 'ENCRYPTION_KEYS')).decode([encoded!]), (err: CodecError) => {
      assert.equal(err.type, ErrorType.CodecUnknownKey);
      assert.match(err.message, /key "k1".*configured keys \(k2\)/);
      assert.ok(!err.message.includes(k2.split(':')[1]!));
      return true;
    });
    const impostor = `k1:${randomBytes(32).toString('base64')}`;
    await assert.rejects(new EncryptionCodec(parseKeyRing(impostor, 'ENCRYPTION_KEYS')).decode([encoded!]), { type: ErrorType.CodecDecryptFailed });
    const tampered = { ...encoded!, data: Buffer.from(encoded!.data!).map((b, i) => (i === 20 ? b ^ 1 : b)) };
    await assert.rejects(new EncryptionCodec(parseKeyRing(k1, 'ENCRYPTION_KEYS')).decode([tampered]), { type: ErrorType.CodecDecryptFailed });
    // Relabelling a payload with another configured key ID fails too: the ID is authenticated.
    const relabelled = { ...encoded!, metadata: { ...encoded!.metadata, [keyIdMetadataKey]: Buffer.from('k2') } };
    const both = new EncryptionCodec(parseKeyRing(`${k1},k2:${k1.split(':')[1]}`, 'ENCRYPTION_KEYS'));
    await assert.rejects(both.decode([relabelled]), { type: ErrorType.CodecDecryptFailed });
  });

  it('passes payloads that were never encrypted through decode, so jobs from before encryption stay readable', async () => {
    const codec = new EncryptionCodec(parseKeyRing(k1, 'ENCRYPTION_KEYS'));
    assert.deepEqual((await codec.decode([plain({ a: 1 })])).map(value), [{ a: 1 }]);
  });
});

describe('KeylessCodec: the data converter without keys', () => {
  it('is what dataConverterFor gives without keys, with the default converters, so the workflow bundle is unchanged', () => {
    const converter = dataConverterFor({});
    assert.equal(converter.payloadCodecs?.length, 1);
    assert.ok(converter.payloadCodecs?.[0] instanceof KeylessCodec);
    assert.equal(converter.failureConverterPath, undefined);
    assert.equal(converter.payloadConverterPath, undefined);
    assert.ok(dataConverterFor({ encryptionKeys: newKeyEntry('k1') }).payloadCodecs?.[0] instanceof EncryptionCodec);
  });

  it('passes plain payloads through both ways untouched: the same array back, nothing copied', async () => {
    const codec = new KeylessCodec();
    const payloads = [plain({ a: 1 }), plain(null), plain(new Uint8Array([1, 2])), plain('binary/encrypted')];
    assert.equal(await codec.encode(payloads), payloads);
    assert.equal(await codec.decode(payloads), payloads);
    assert.deepEqual(payloads.map(value), [{ a: 1 }, null, new Uint8Array([1, 2]), 'binary/encrypted']);
  });

  it('refuses an encrypted payload with jobs:codec-unknown-key, naming its key ID and the settings', async () => {
    const [encoded] = await new EncryptionCodec(parseKeyRing(newKeyEntry('k7'), 'ENCRYPTION_KEYS')).encode([plain(marker)]);
    await assert.rejects(new KeylessCodec().decode([plain('before'), encoded!]), (err: CodecError) => {
      assert.ok(err instanceof CodecError);
      assert.equal(err.type, ErrorType.CodecUnknownKey);
      assert.match(err.message, /^jobs:codec-unknown-key: a payload is encrypted with key "k7", and no keys are configured; set ENCRYPTION_KEYS or ENCRYPTION_KEY_FILE/);
      return true;
    });
  });
});

describe('encryption keys', () => {
  it('reads a key file with comments, the last key current', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'keys-'));
    const file = path.join(dir, 'keys');
    await writeFile(file, `# rotated 2026-11\n${newKeyEntry('old')}\n${newKeyEntry('new')}  # current\n`);
    const ring = loadKeyRing({ encryptionKeyFile: file })!;
    assert.equal(ring.current.id, 'new');
    assert.deepEqual([...ring.byId.keys()], ['old', 'new']);
  });

  it('rejects malformed keys naming the setting and entry, never echoing the material', () => {
    const shortKey = randomBytes(16).toString('base64');
    const cases: [string, RegExp][] = [
      [`k1:${shortKey}`, /ENCRYPTION_KEYS entry 1 \(k1\): the key must be 32 bytes.*got 16 bytes/],
      [shortKey, /ENCRYPTION_KEYS entry 1: must look like <key-id>:<base64 key>/],
      [`bad id:${randomBytes(32).toString('base64')}`, /ENCRYPTION_KEYS entry 1: must look like/],
      [`k1:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`, /entry 2 \(k1\): this key ID is listed twice/],
      [' , ', /ENCRYPTION_KEYS: is set but lists no key/],
    ];
    for (const [text, expected] of cases) {
      assert.throws(() => parseKeyRing(text, 'ENCRYPTION_KEYS'), (err: ConfigError) => {
        assert.match(err.message, expected);
        for (const part of text.split(/[,:]/).filter((p) => p.length >= 16)) assert.ok(!err.message.includes(part), `${err.message} shows key material`);
        return true;
      });
    }
  });

  it('refuses both settings at once, and names an unreadable key file', () => {
    assert.throws(() => loadKeyRing({ encryptionKeys: newKeyEntry('a'), encryptionKeyFile: '/x' }), /ENCRYPTION_KEYS, ENCRYPTION_KEY_FILE: set one or the other/);
    assert.throws(() => loadKeyRing({ encryptionKeyFile: '/nonexistent/keys' }), /ENCRYPTION_KEY_FILE: cannot read \/nonexistent\/keys/);
    assert.equal(loadKeyRing({}), undefined);
  });
});
