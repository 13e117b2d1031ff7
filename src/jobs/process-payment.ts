import { z } from 'zod';
import { ErrorType } from '../shared/errors';
import { exponential, schedule } from '../shared/retry';
import { identifier, jobIdPattern } from '../shared/limits';
import { defineJob } from './definition';

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
      .int('must be a whole number of minor units, e.g. 1250 for 12.50')
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
  });

/** A validated `process-payment` payload. */
export type ProcessPaymentPayload = z.infer<typeof processPaymentPayload>;

/** What a completed `process-payment` job returns. */
export interface ProcessPaymentResult {
  paymentId: string;
  fromAccount: string;
  toAccount: string;
  /** Amount moved, in minor units. */
  amount: number;
  currency: string;
  /** When the money moved (ISO 8601), as recorded by the capture step. */
  capturedAt: string;
}

/**
 * The business failures of a payment: each fails its step at once and triggers compensation.
 * Retrying cannot help (the money, account or currency will not change by waiting).
 */
export const paymentBusinessErrors = [
  ErrorType.InsufficientFunds,
  ErrorType.UnknownAccount,
  ErrorType.CurrencyMismatch,
  ErrorType.InvalidAmount,
  ErrorType.DuplicatePayment,
  ErrorType.InvalidPayload,
] as const;

/** `12.50` for 1250 minor units; two decimals, exact for any safe integer. */
export function formatMinorUnits(amount: number): string {
  const cents = String(Math.abs(amount) % 100).padStart(2, '0');
  return `${amount < 0 ? '-' : ''}${Math.floor(Math.abs(amount) / 100)}.${cents}`;
}

/** The `process-payment` job type: a saga of reserve, capture and release, compensated on failure. */
export const processPaymentJob = defineJob({
  type: 'process-payment',
  workflowType: 'processPaymentWorkflow',
  description: 'Move money between two accounts: reserve, capture, release; undone newest first on failure',
  payload: processPaymentPayload,
  presets: {
    /** reserve, capture, release: a busy or unreachable database is retried; business failures are not. */
    step: {
      retry: schedule('1s', '5s', '30s', '2m', '10m'),
      nonRetryableErrorTypes: paymentBusinessErrors,
      timeouts: { startToClose: '30s', scheduleToClose: '30m' },
    },
    /**
     * compensate:capture, compensate:reserve: an undo must eventually happen, so it is retried for
     * (practically) ever: 10,000 attempts at most 10 minutes apart is about 70 days.
     */
    compensate: {
      retry: exponential({ initialInterval: '1s', maximumInterval: '10m', maximumAttempts: 10_000 }),
      timeouts: { startToClose: '30s' },
    },
  },
  mainPreset: 'step',
  steps: ['reserve', 'capture', 'release'],
  idempotencyKey: (payload) => `payment:${payload.paymentId}`,
  summary: (payload) =>
    `pay ${formatMinorUnits(payload.amount)} ${payload.currency} ${payload.fromAccount} → ${payload.toAccount}`.slice(0, 200),
});
