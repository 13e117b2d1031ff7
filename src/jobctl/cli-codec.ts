import type { Command } from 'commander';
import { loadConfig, type Config } from '../shared/config';
import { EncryptionCodec } from '../shared/encryption-codec';
import { loadKeyRing, newKeyEntry } from '../shared/encryption-keys';
import { ConfigError } from '../shared/errors';
import { startCodecServer, type CodecServer } from '../client/codec-server';
import { UsageError, parsePort } from './cli-support';

/** The Web UI origins allowed to call the codec server: CODEC_SERVER_ORIGINS, else the embedded dev server's UI. */
export function codecServerOrigins(config: Pick<Config, 'codecServerOrigins' | 'devServerIp' | 'devServerUiPort'>): string[] {
  if (config.codecServerOrigins) return config.codecServerOrigins.split(',').map((o) => o.trim()).filter(Boolean);
  return [`http://${config.devServerIp}:${config.devServerUiPort}`, `http://localhost:${config.devServerUiPort}`];
}

/** Starts a codec server with the configured keys; a configuration without keys is an error naming both settings. */
export async function startConfiguredCodecServer(config: Config, listen: { host?: string; port: number }): Promise<CodecServer> {
  const keys = loadKeyRing(config);
  if (!keys) throw new ConfigError([{ path: 'ENCRYPTION_KEYS, ENCRYPTION_KEY_FILE', message: 'a codec server needs the encryption keys; set one of them' }]);
  return startCodecServer({ codecs: [new EncryptionCodec(keys)], origins: codecServerOrigins(config), ...listen });
}

/** Adds `jobctl codec-server` and `jobctl keygen`. */
export function addCodecCommands(program: Command): void {
  program
    .command('codec-server')
    .description('Serve the payload codec to the Temporal Web UI (and `temporal --codec-endpoint`) so that people who reach it see decrypted payloads')
    .option('--host <host>', 'address to listen on; anyone who reaches it can decrypt', '127.0.0.1')
    .option('--port <port>', 'port to listen on (CODEC_SERVER_PORT)')
    .action(async (opts: { host: string; port?: string }) => {
      // Checked here, so that a bad flag is named as the flag; loadConfig names CODEC_SERVER_PORT.
      const config = loadConfig(opts.port === undefined ? {} : { codecServerPort: parsePort(opts.port, '--port') });
      const portSource = opts.port === undefined ? 'CODEC_SERVER_PORT' : '--port';
      const server = await startConfiguredCodecServer(config, { host: opts.host, port: config.codecServerPort }).catch((err: unknown) => {
        throw listenError(err, `${opts.host}:${config.codecServerPort}`, portSource);
      });
      console.log(`codec server on ${server.url} for ${codecServerOrigins(config).join(', ')}; Ctrl-C stops it`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve).once('SIGTERM', resolve);
      });
      await server.close();
    });

  program
    .command('keygen')
    .description('Print a new encryption key entry, <key-id>:<base64>, for ENCRYPTION_KEYS or a key file (append it last to rotate)')
    .option('--id <key-id>', 'the key ID stored beside each payload', `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`)
    .action((opts: { id: string }) => {
      try {
        console.log(newKeyEntry(opts.id));
      } catch (err) {
        throw err instanceof ConfigError ? new UsageError(`--id ${err.issues[0]?.message ?? 'is invalid'}`) : err;
      }
    });
}

/** A failed listen, as a configuration error naming the setting to change. */
function listenError(err: unknown, address: string, portSource: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return new ConfigError([{ path: portSource, message: `${address} is already in use; choose another ${portSource}` }], { cause: err });
  if (code === 'EACCES') return new ConfigError([{ path: portSource, message: `may not listen on ${address} (a port under 1024 needs privileges); choose another ${portSource}` }], { cause: err });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new ConfigError([{ path: '--host', message: `${address.replace(/:\d+$/, '')} is not an address of this machine` }], { cause: err });
  return err;
}
