import type { DataConverter } from '@temporalio/common';
import type { Config } from './config';
import { EncryptionCodec, KeylessCodec } from './encryption-codec';
import { loadKeyRing } from './encryption-keys';

const keyless = new KeylessCodec();

/**
 * The data converter every client and worker of this deployment uses: with keys configured,
 * payloads are encrypted and failure messages and stack traces (which can quote a payload) are
 * moved into an encrypted attribute. Without keys, the SDK's default converters with
 * {@link KeylessCodec}: plain payloads pass through, an encrypted one fails as
 * `jobs:codec-unknown-key`. Both sides must agree, so this is the only place that decides.
 *
 * Codecs run outside the workflow sandbox; only `failureConverterPath` reaches the workflow
 * bundle, and without keys it stays unset, so the bundle is the SDK's default.
 */
export function dataConverterFor(config: Partial<Pick<Config, 'encryptionKeys' | 'encryptionKeyFile'>>): DataConverter {
  const keys = loadKeyRing(config);
  if (keys === undefined) return { payloadCodecs: [keyless] };
  return {
    payloadCodecs: [new EncryptionCodec(keys)],
    failureConverterPath: require.resolve('./failure-converter'),
  };
}
