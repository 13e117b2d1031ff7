import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../client';
import { describeError } from '../activity-kit';
import { loadSettings, type SettingField, type SettingsOverrides } from '../worker';

const bool = z.enum(['true', 'false', '1', '0'], { error: 'must be true or false' }).transform((v) => v === 'true' || v === '1');

/** The built-in job types' own settings: where email goes, where reports are written, where sync-data pulls from. */
const fields = {
  /** Where `send-email` writes .eml files when SMTP_URL is unset. @defaultValue '<DATA_DIR>/outbox' */
  outboxDir: { env: 'OUTBOX_DIR', schema: z.string().min(1).optional() },
  /** SMTP server URL; when set, `send-email` sends over SMTP. @defaultValue unset (outbox) */
  smtpUrl: { env: 'SMTP_URL', schema: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional() },
  /**
   * A PEM file of CA certificates trusted for the mail server's TLS certificate (STARTTLS or
   * smtps://), in addition to Node's built-in ones: a company CA, or a relay's self-signed
   * certificate. Read and checked at worker start. @defaultValue unset (Node's built-in CAs only)
   */
  smtpCaFile: { env: 'SMTP_CA_FILE', schema: z.string().min(1).optional() },
  /**
   * `false` accepts any certificate from the mail server, unverified (the worker warns at start):
   * for a test relay only, since anyone on the path can then read the mail and the SMTP password.
   * @defaultValue true
   */
  smtpTlsRejectUnauthorized: { env: 'SMTP_TLS_REJECT_UNAUTHORIZED', schema: bool.default(true) },
  /** From header of sent email. @defaultValue 'durable-jobs <jobs@localhost>' */
  emailFrom: { env: 'EMAIL_FROM', schema: z.string().min(1).default('durable-jobs <jobs@localhost>') },
  /** Directory `generate-report` writes its files to. @defaultValue '<DATA_DIR>/reports' */
  reportsDir: { env: 'REPORTS_DIR', schema: z.string().min(1).optional() },
  /** HTTP JSON source that `sync-data` pulls pages from. @defaultValue unset (a worker asked for sync-data by name refuses to start; otherwise a warning at start, and sync-data jobs wait on jobs:missing-config, consuming no attempt, until a worker that has it runs them) */
  syncSourceUrl: { env: 'SYNC_SOURCE_URL', schema: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional() },
} as const satisfies Record<string, SettingField>;

/** The built-in job types' validated settings. */
export interface BuiltInSettings {
  outboxDir: string;
  smtpUrl?: string;
  /** How the mail server's certificate is checked. */
  smtpTls: { ca?: string; caFile?: string; rejectUnauthorized: boolean };
  emailFrom: string;
  reportsDir: string;
  syncSourceUrl?: string;
}

/**
 * Reads the built-in job types' settings (explicit option > env var > default), with the outbox and
 * reports under the core's `DATA_DIR` by default. Throws `jobs:invalid-config` naming each bad
 * variable, at worker start, not at the first job.
 */
export function loadBuiltInSettings(dataDir: string, overrides: SettingsOverrides<typeof fields> = {}, env: NodeJS.ProcessEnv = process.env): BuiltInSettings {
  const { smtpCaFile, smtpTlsRejectUnauthorized, ...s } = loadSettings(fields, overrides, env);
  return {
    ...s,
    smtpTls: { ca: smtpCaFile === undefined ? undefined : readCaFile(smtpCaFile), caFile: smtpCaFile, rejectUnauthorized: smtpTlsRejectUnauthorized },
    outboxDir: path.resolve(s.outboxDir ?? path.join(dataDir, 'outbox')),
    reportsDir: path.resolve(s.reportsDir ?? path.join(dataDir, 'reports')),
  };
}

/** The PEM bundle of SMTP_CA_FILE, checked to hold at least one certificate. */
function readCaFile(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: 'SMTP_CA_FILE', message: `cannot read ${file}: ${describeError(err)}` }], { cause: err });
  }
  try {
    new X509Certificate(pem);
  } catch (err) {
    throw new ConfigError([{ path: 'SMTP_CA_FILE', message: `${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----): ${describeError(err)}` }], { cause: err });
  }
  return pem;
}
