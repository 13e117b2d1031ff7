import { ErrorType } from '../workflow-kit';
import { exponentialRetry, retrySchedule } from '../workflow-kit';
import { defineJob } from '../workflow-kit';
import { withFormerNames } from './former-error-types';
import type { ProcessPaymentPayload } from './payloads/process-payment';

export type { ProcessPaymentPayload } from './payloads/process-payment';

/**
 * The `process-payment` job type's own error types, in its own namespace (until 0.3 in the library's
 * `jobs:`, {@link withFormerNames}): stored in histories and matched by its presets, so never renamed in place.
 */
export const ProcessPaymentErrorType = {
  /** The from-account's available balance does not cover the payment: never retried. */
  InsufficientFunds: 'process-payment:insufficient-funds',
  /** A payment names an account that does not exist: never retried. */
  UnknownAccount: 'process-payment:unknown-account',
  /** A payment's currency differs from an account's: never retried. */
  CurrencyMismatch: 'process-payment:currency-mismatch',
  /** A payment amount is not a positive integer: never retried. */
  InvalidAmount: 'process-payment:invalid-amount',
  /** Another job already owns this payment ID: never retried. */
  DuplicatePayment: 'process-payment:duplicate-payment',
  /** A compensating step cannot take effect yet (e.g. the money was spent): retried until it can. */
  CompensationPending: 'process-payment:compensation-pending',
} as const;

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
  ProcessPaymentErrorType.InsufficientFunds,
  ProcessPaymentErrorType.UnknownAccount,
  ProcessPaymentErrorType.CurrencyMismatch,
  ProcessPaymentErrorType.InvalidAmount,
  ProcessPaymentErrorType.DuplicatePayment,
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
  presets: {
    /** reserve, capture, release: a busy or unreachable database is retried; business failures are not. */
    step: {
      retry: retrySchedule('1s', '5s', '30s', '2m', '10m'),
      nonRetryableErrorTypes: withFormerNames(paymentBusinessErrors),
      timeouts: { startToClose: '30s', scheduleToClose: '30m' },
    },
    /**
     * compensate:capture, compensate:reserve: an undo must eventually happen, so it is retried for
     * (practically) ever: 10,000 attempts at most 10 minutes apart is about 70 days.
     */
    compensate: {
      retry: exponentialRetry({ initialInterval: '1s', maximumInterval: '10m', maximumAttempts: 10_000 }),
      timeouts: { startToClose: '30s' },
    },
  },
  mainPreset: 'step',
  steps: ['reserve', 'capture', 'release'],
  idempotencyKey: (payload: ProcessPaymentPayload) => `payment:${payload.paymentId}`,
  summary: (payload: ProcessPaymentPayload) =>
    `pay ${formatMinorUnits(payload.amount)} ${payload.currency} ${payload.fromAccount} → ${payload.toAccount}`.slice(0, 200),
});
