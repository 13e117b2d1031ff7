import { readFileSync } from 'node:fs';
import type { Config } from './config';

/** Connection options shared by the client's `Connection` and the worker's `NativeConnection`. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: boolean | { clientCertPair: { crt: Buffer; key: Buffer } };
  apiKey?: string;
}

/** The Temporal address in use: TEMPORAL_ADDRESS, or the embedded dev server's. */
export function temporalAddress(config: Config): string {
  return config.temporalAddress ?? `${config.devServerIp}:${config.devServerPort}`;
}

/** Builds connection options from the configuration (address, TLS, API key). */
export function connectionOptions(config: Config): TemporalConnectionOptions {
  const options: TemporalConnectionOptions = { address: temporalAddress(config) };
  if (config.tlsCertPath && config.tlsKeyPath) {
    options.tls = { clientCertPair: { crt: readFileSync(config.tlsCertPath), key: readFileSync(config.tlsKeyPath) } };
  } else if (config.tls) {
    options.tls = true;
  }
  if (config.apiKey) options.apiKey = config.apiKey;
  return options;
}
