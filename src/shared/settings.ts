import { z } from 'zod';
import { ConfigError } from './errors';

/** One setting: the environment variable it is read from, an optional flag, and its schema. */
export interface SettingField {
  /** The environment variable, e.g. `SMTP_URL`. */
  env: string;
  /** The command-line flag that sets it too, for messages. @defaultValue none */
  flag?: string;
  /** How it is parsed and checked, with its default. */
  schema: z.ZodType;
  /** Its value never appears in an error message. @defaultValue false */
  secret?: boolean;
}

/** What a set of fields parses to. */
export type SettingsOf<F extends Record<string, SettingField>> = { [K in keyof F]: z.output<F[K]['schema']> };

/** What may override a set of fields' environment variables. */
export type SettingsOverrides<F extends Record<string, SettingField>> = { [K in keyof F]?: z.input<F[K]['schema']> };

/**
 * Reads and validates a set of settings with explicit precedence: an explicit option > the
 * environment variable > the default (an empty variable counts as unset). Throws a
 * {@link ConfigError} naming every bad field by its variable (and flag), never echoing a secret or
 * a URL's password. The core's configuration and each catalog's own settings use it alike.
 */
export function loadSettings<F extends Record<string, SettingField>>(fields: F, overrides: SettingsOverrides<F> = {}, env: NodeJS.ProcessEnv = process.env): SettingsOf<F> {
  const shape = Object.fromEntries(Object.entries(fields).map(([key, f]) => [key, f.schema]));
  const raw: Record<string, unknown> = {};
  for (const [key, f] of Object.entries(fields)) {
    const explicit = (overrides as Record<string, unknown>)[key];
    const fromEnv = env[f.env];
    raw[key] = explicit !== undefined ? explicit : fromEnv === '' ? undefined : fromEnv;
  }
  const result = z.object(shape).safeParse(raw);
  if (result.success) return result.data as SettingsOf<F>;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const key = String(issue.path[0]);
      const field: SettingField | undefined = fields[key];
      // A URL's password never reaches the message (it ends up in logs).
      const got = field?.secret ? '(redacted)' : JSON.stringify(raw[key])?.replace(/(\/\/[^:/@"]*:)[^@"]*@/, '$1***@');
      return { path: field ? (field.flag ? `${field.flag} / ${field.env}` : field.env) : key, message: `${issue.message} (got ${got})` };
    }),
  );
}
