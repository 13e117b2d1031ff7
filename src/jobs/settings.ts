import path from 'node:path';
import { z } from 'zod';
import { loadSettings, type SettingField, type SettingsOverrides } from '../worker';

/** The built-in job types' own settings: where email goes, where reports are written, where sync-data pulls from. */
const fields = {
  /** Where `send-email` writes .eml files when SMTP_URL is unset. @defaultValue '<DATA_DIR>/outbox' */
  outboxDir: { env: 'OUTBOX_DIR', schema: z.string().min(1).optional() },
  /** SMTP server URL; when set, `send-email` sends over SMTP. @defaultValue unset (outbox) */
  smtpUrl: { env: 'SMTP_URL', schema: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional() },
  /** From header of sent email. @defaultValue 'durable-jobs <jobs@localhost>' */
  emailFrom: { env: 'EMAIL_FROM', schema: z.string().min(1).default('durable-jobs <jobs@localhost>') },
  /** Directory `generate-report` writes its files to. @defaultValue '<DATA_DIR>/reports' */
  reportsDir: { env: 'REPORTS_DIR', schema: z.string().min(1).optional() },
  /** HTTP JSON source that `sync-data` pulls pages from. @defaultValue unset (sync-data attempts fail with the retryable jobs:missing-config) */
  syncSourceUrl: { env: 'SYNC_SOURCE_URL', schema: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional() },
} as const satisfies Record<string, SettingField>;

/** The built-in job types' validated settings. */
export interface BuiltInSettings {
  outboxDir: string;
  smtpUrl?: string;
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
  const s = loadSettings(fields, overrides, env);
  return {
    ...s,
    outboxDir: path.resolve(s.outboxDir ?? path.join(dataDir, 'outbox')),
    reportsDir: path.resolve(s.reportsDir ?? path.join(dataDir, 'reports')),
  };
}
