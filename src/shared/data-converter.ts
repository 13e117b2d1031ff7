import type { DataConverter } from '@temporalio/common';
import type { Config } from './config';
import { EncryptionCodec } from './encryption-codec';
import { loadKeyRing } from './encryption-keys';

/**
 * The data converter every client and worker of this deployment uses: with keys configured,
 * payloads are encrypted and failure messages and stack traces (which can quote a payload) are
 * moved into an encrypted attribute; without keys, the SDK's default. Both sides must agree, so
 * this is the only place that decides.
 */
export function dataConverterFor(config: Partial<Pick<Config, 'encryptionKeys' | 'encryptionKeyFile'>>): DataConverter | undefined {
  const keys = loadKeyRing(config);
  if (keys === undefined) return undefined;
  return {
    payloadCodecs: [new EncryptionCodec(keys)],
    failureConverterPath: require.resolve('./failure-converter'),
  };
}
