import { z } from 'zod';
import { identifier, whenValid } from '../../catalog';

/**
 * Built-in templates a `send-email` job may name instead of a body, with the variables each fills
 * in: a payload must give every one of them (a misspelt name would otherwise send a blank). The
 * bodies are in src/activities/email-templates.ts; its test keeps the two in step.
 */
export const emailTemplateVariables = {
  welcome: ['name'],
  'password-reset': ['name', 'link'],
} as const satisfies Record<string, readonly string[]>;

/** Names of the built-in templates. */
export const emailTemplateNames = Object.keys(emailTemplateVariables) as [keyof typeof emailTemplateVariables, ...(keyof typeof emailTemplateVariables)[]];

/** Payload of a `send-email` job. */
export const sendEmailPayload = z
  .object({
    /** Recipient address. */
    to: z.email({ error: 'must be a valid email address' }),
    /** Subject line. */
    subject: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(998, 'must be at most 998 characters')
      .regex(/^[^\r\n]*$/, 'must not contain line breaks'),
    /** Plain-text body. Give either `body` or `template`. */
    body: z.string().min(1, 'must not be empty').max(100_000, 'must be at most 100000 characters').optional(),
    /** A built-in template and the values it fills in. Give either `body` or `template`. */
    template: z
      .object({
        name: z.enum(emailTemplateNames),
        vars: z
          .record(z.string().regex(/^\w{1,64}$/, 'must be 1 to 64 letters, digits or _'), z.string().max(2000, 'must be at most 2000 characters'))
          .refine((vars) => Object.keys(vars).length <= 50, 'must have at most 50 entries')
          .default({}),
      })
      .strict()
      .superRefine((template, ctx) => {
        const missing = emailTemplateVariables[template.name].filter((name) => !template.vars[name]);
        for (const name of missing) ctx.addIssue({ code: 'custom', path: ['vars', name], message: `is required by the ${template.name} template` });
      }, whenValid('name', 'vars'))
      .optional(),
    /** The user this email is for; recorded as the `X-User-Id` header. */
    userId: identifier(200),
  })
  .strict()
  .superRefine((value, ctx) => {
    if ((value.body === undefined) === (value.template === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'give exactly one of body or template' });
    }
  }, whenValid('body', 'template'));

/** A validated `send-email` payload. */
export type SendEmailPayload = z.infer<typeof sendEmailPayload>;
