import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, describeError, type FieldIssue } from './errors';

/** One AES-256 key and the ID stored beside every payload it encrypted. */
export interface EncryptionKey {
  /** Stored in each payload's metadata, so it is not secret; 1–64 of `A-Z a-z 0-9 . _ -`. */
  id: string;
  /** 32 bytes of key material. */
  key: Buffer;
}

/** The configured keys: the newest encrypts, every one decrypts. */
export interface KeyRing {
  /** The key new payloads are encrypted with: the last one listed. */
  current: EncryptionKey;
  /** Every key by ID, for payloads written before a rotation. */
  byId: ReadonlyMap<string, EncryptionKey>;
}

const keyIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Parses `<key-id>:<base64 of 32 bytes>` entries, separated by commas or new lines (`#` starts a
 * comment). The last entry is the current key. Messages name the entry by position and key ID,
 * never by its material.
 */
export function parseKeyRing(text: string, source: string): KeyRing {
  const entries = text
    .split(/[,\n]/)
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
  const issues: FieldIssue[] = [];
  const byId = new Map<string, EncryptionKey>();
  entries.forEach((entry, index) => {
    const where = `${source} entry ${index + 1}`;
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    if (!keyIdPattern.test(id)) {
      issues.push({ path: where, message: 'must look like <key-id>:<base64 key>, the ID 1–64 of A-Z a-z 0-9 . _ -' });
      return;
    }
    const material = entry.slice(colon + 1);
    const key = Buffer.from(material, 'base64');
    if (key.length !== 32 || key.toString('base64') !== material) {
      issues.push({ path: `${where} (${id})`, message: `the key must be 32 bytes in standard base64 (got ${key.length} bytes); make one with \`jobctl keygen\`` });
      return;
    }
    if (byId.has(id)) issues.push({ path: `${where} (${id})`, message: 'this key ID is listed twice' });
    byId.delete(id);
    byId.set(id, { id, key });
  });
  if (issues.length === 0 && byId.size === 0) issues.push({ path: source, message: 'is set but lists no key' });
  if (issues.length > 0) throw new ConfigError(issues);
  return { current: [...byId.values()].at(-1)!, byId };
}

/** The key ring from ENCRYPTION_KEYS or ENCRYPTION_KEY_FILE (never both), or undefined when neither is set. */
export function loadKeyRing(settings: { encryptionKeys?: string; encryptionKeyFile?: string }): KeyRing | undefined {
  if (settings.encryptionKeys !== undefined && settings.encryptionKeyFile !== undefined) {
    throw new ConfigError([{ path: 'ENCRYPTION_KEYS, ENCRYPTION_KEY_FILE', message: 'set one or the other, not both' }]);
  }
  if (settings.encryptionKeys !== undefined) return parseKeyRing(settings.encryptionKeys, 'ENCRYPTION_KEYS');
  if (settings.encryptionKeyFile === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(settings.encryptionKeyFile, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: 'ENCRYPTION_KEY_FILE', message: `cannot read ${settings.encryptionKeyFile}: ${describeError(err)}` }]);
  }
  return parseKeyRing(text, 'ENCRYPTION_KEY_FILE');
}

/** A new key entry, `<id>:<base64>`, for a key file or ENCRYPTION_KEYS. */
export function newKeyEntry(id: string): string {
  if (!keyIdPattern.test(id)) throw new ConfigError([{ path: 'id', message: 'must be 1–64 of A-Z a-z 0-9 . _ -' }]);
  return `${id}:${randomBytes(32).toString('base64')}`;
}
