import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { CodecError, ErrorType } from './errors';
import type { KeyRing } from './encryption-keys';

/** The `encoding` metadata of an encrypted payload. */
export const encryptedEncoding = 'binary/encrypted';
/** The metadata key naming the key a payload was encrypted with. */
export const keyIdMetadataKey = 'encryption-key-id';

const ivBytes = 12;
const tagBytes = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encryptedEncodingBytes = encoder.encode(encryptedEncoding);

/**
 * The Payload message, loaded when a payload is first encrypted or decrypted: the SDK's protobuf
 * definitions take tens of milliseconds to load, and {@link KeylessCodec} (every client without
 * keys, jobctl's HTTP reads among them) never needs them.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const payloadMessage = () => (require('@temporalio/proto') as typeof import('@temporalio/proto')).temporal.api.common.v1.Payload;

/**
 * Whether a payload is one {@link EncryptionCodec} encrypted (its `encoding` is `binary/encrypted`).
 * Compares bytes, so a plain payload costs a length check and no string decoding.
 */
export function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  if (encoding?.length !== encryptedEncodingBytes.length) return false;
  for (let i = 0; i < encoding.length; i++) if (encoding[i] !== encryptedEncodingBytes[i]) return false;
  return true;
}

function keyIdOf(payload: Payload): string {
  const idBytes = payload.metadata?.[keyIdMetadataKey];
  return idBytes ? decoder.decode(idBytes) : '';
}

/**
 * AES-256-GCM over the whole serialized payload (its metadata included), with a fresh 96-bit IV per
 * payload and the key ID as additional authenticated data, so moving a payload under another key
 * ID fails. Payloads that are not encrypted pass through `decode` untouched: jobs from before
 * encryption was turned on stay readable.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keys: KeyRing) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys.current;
    return payloads.map((payload) => {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(encoder.encode(id));
      const plain = payloadMessage().encode(payload).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: encoder.encode(encryptedEncoding), [keyIdMetadataKey]: encoder.encode(id) }, data };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!isEncrypted(payload)) return payload;
      const id = keyIdOf(payload);
      const entry = this.keys.byId.get(id);
      if (!entry) {
        throw new CodecError(ErrorType.CodecUnknownKey, `a payload is encrypted with key "${id}", which is not among the configured keys (${[...this.keys.byId.keys()].join(', ')}); add it to ENCRYPTION_KEYS or ENCRYPTION_KEY_FILE`);
      }
      const data = Buffer.from(payload.data ?? []);
      if (data.length < ivBytes + tagBytes) throw new CodecError(ErrorType.CodecDecryptFailed, `a payload encrypted with key "${id}" is truncated`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', entry.key, data.subarray(0, ivBytes)).setAAD(encoder.encode(id));
        decipher.setAuthTag(data.subarray(data.length - tagBytes));
        const plain = Buffer.concat([decipher.update(data.subarray(ivBytes, data.length - tagBytes)), decipher.final()]);
        return payloadMessage().decode(plain);
      } catch (cause) {
        throw new CodecError(ErrorType.CodecDecryptFailed, `a payload does not decrypt with key "${id}": the key's material differs from the one that encrypted it, or the payload was altered`, { cause });
      }
    });
  }
}

/**
 * The codec of a client or worker without keys. Plain payloads pass through both ways untouched
 * (the same array back, nothing copied); an encrypted payload is refused with
 * `jobs:codec-unknown-key`, naming its key ID and the settings to set, instead of the SDK's bare
 * "Unknown encoding" from deeper down.
 */
export class KeylessCodec implements PayloadCodec {
  encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.resolve(payloads);
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads) {
      if (isEncrypted(payload)) {
        const message = `a payload is encrypted with key "${keyIdOf(payload)}", and no keys are configured; set ENCRYPTION_KEYS or ENCRYPTION_KEY_FILE to the deployment's keys`;
        return Promise.reject(new CodecError(ErrorType.CodecUnknownKey, message));
      }
    }
    return Promise.resolve(payloads);
  }
}
