import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
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
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: encoder.encode(encryptedEncoding), [keyIdMetadataKey]: encoder.encode(id) }, data };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      if (!encoding || decoder.decode(encoding) !== encryptedEncoding) return payload;
      const idBytes = payload.metadata?.[keyIdMetadataKey];
      const id = idBytes ? decoder.decode(idBytes) : '';
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
        return temporal.api.common.v1.Payload.decode(plain);
      } catch (cause) {
        throw new CodecError(ErrorType.CodecDecryptFailed, `a payload does not decrypt with key "${id}": the key's material differs from the one that encrypted it, or the payload was altered`, { cause });
      }
    });
  }
}
