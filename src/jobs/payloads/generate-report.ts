import { z } from 'zod';
import { identifier, whenValid } from '../../catalog';

/** Longest period one report may cover, in days. */
export const maxReportDays = 366;

/** Most account IDs an `accounts` filter may list. */
export const maxReportAccounts = 1000;

/** File formats a report can be written in. */
export const reportFormats = ['csv', 'json'] as const;

const isoDateOrDateTime = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: 'must be an ISO 8601 date (2026-01-01) or date-time (2026-01-01T00:00:00Z)',
});

/** Payload of a `generate-report` job. */
export const generateReportPayload = z
  .object({
    /** Start of the period, inclusive: an ISO 8601 date (midnight UTC) or date-time. */
    from: isoDateOrDateTime,
    /** End of the period, exclusive: an ISO 8601 date (midnight UTC) or date-time. */
    to: isoDateOrDateTime,
    /** File format. @defaultValue 'csv' */
    format: z.enum(reportFormats).default('csv'),
    /** Only these accounts (IDs). @defaultValue every account with entries in the period */
    accounts: z.array(identifier(128)).min(1, 'must list at least one account').max(maxReportAccounts, `must list at most ${maxReportAccounts} accounts`).optional(),
    /**
     * File-name stem; the file is `<name>.<format>` in the reports directory. A file already there
     * under that name is taken to be this report, so give each report its own name.
     * @defaultValue `report-<job ID, escaped>`
     */
    name: z
      .string()
      .regex(/^(?!\.)[A-Za-z0-9._-]{1,100}$/, 'must be 1-100 characters from A-Z a-z 0-9 . _ - and not start with a dot')
      .optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    const from = Date.parse(value.from);
    const to = Date.parse(value.to);
    if (!(from < to)) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
    } else if (to - from > maxReportDays * 86_400_000) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `the period must be at most ${maxReportDays} days` });
    }
  }, whenValid('from', 'to'));

/** A validated `generate-report` payload. */
export type GenerateReportPayload = z.infer<typeof generateReportPayload>;
