import { z } from 'zod';
import { identifier, jobIdPattern, whenValid } from '../../catalog';

/** Payload of a `process-payment` job: move `amount` minor units from one account to another. */
export const processPaymentPayload = z
  .object({
    /** The business ID of the payment; one payment ID is paid at most once. */
    paymentId: identifier(128).regex(jobIdPattern, 'must use only A-Z, a-z, 0-9 and . _ : @ / + = - (it becomes part of the job ID)'),
    /** The account the money leaves. */
    fromAccount: identifier(128),
    /** The account the money enters; must differ from `fromAccount`. */
    toAccount: identifier(128),
    /** Amount in minor units (cents), a positive safe integer: 1250 is 12.50. */
    amount: z
      .number({ error: 'must be a number of minor units, e.g. 1250 for 12.50' })
      // A refinement, not .int(): zod's int check ends the parse, and the accounts check would not run.
      .refine(Number.isInteger, 'must be a whole number of minor units, e.g. 1250 for 12.50')
      .positive('must be greater than 0')
      .max(Number.MAX_SAFE_INTEGER, 'must be at most 9007199254740991'),
    /** ISO 4217 currency code of both accounts, e.g. `EUR`. */
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter upper-case ISO 4217 code, e.g. EUR'),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.fromAccount === value.toAccount) {
      ctx.addIssue({ code: 'custom', path: ['toAccount'], message: 'must differ from fromAccount' });
    }
  }, whenValid('fromAccount', 'toAccount'));

/** A validated `process-payment` payload. */
export type ProcessPaymentPayload = z.infer<typeof processPaymentPayload>;
