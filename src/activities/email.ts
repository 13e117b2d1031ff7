import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type { Kysely } from 'kysely';
import { Context, log } from '@temporalio/activity';
import { SendEmailErrorType, type SendEmailResult } from '../jobs/send-email';
import { sendEmailPayload } from '../jobs/payloads/send-email';
import { currentJob, describeError, diskFullFailure, nonRetryable, parseJobPayload, recordedResult, traced, whileHeartbeating, writeFileAtomic, type LedgerDatabase, type LedgerKey } from '../activity-kit';
import { renderBody } from './email-templates';
import { classifySmtpError } from './smtp-errors';

/** What the email activities need from the outside world. */
export interface EmailDeps {
  /** SMTP server URL, e.g. `smtp://user:pass@mail.example.com:587`. Unset: write .eml files to `outboxDir`. */
  smtpUrl?: string;
  /** Directory the outbox transport writes to. */
  outboxDir: string;
  /** The From header. */
  from: string;
  /**
   * Longest wait for the SMTP server to connect, greet, or answer a command, in ms. Kept under the
   * job's start-to-close timeout so a stalled server surfaces as a classified, retryable error.
   * @defaultValue 10000
   */
  smtpTimeoutMs?: number;
  /** How the mail server's TLS certificate is verified. @defaultValue Node's built-in CAs, verification on */
  tls?: SmtpTlsOptions;
  /**
   * The jobs database, whose ledger records each message the mail server accepted, so that a later
   * attempt of the same job (its completion lost to a crash) sends nothing. @defaultValue none: such an attempt sends again
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any catalog's tables, the ledger among them
  ledger?: Kysely<any>;
}

/** How the mail server's TLS certificate (STARTTLS or smtps://) is verified. */
export interface SmtpTlsOptions {
  /** Extra CA certificates (PEM) to trust, besides Node's built-in ones: `SMTP_CA_FILE`. @defaultValue none */
  ca?: string;
  /** `false` accepts any certificate, unverified: `SMTP_TLS_REJECT_UNAUTHORIZED=false`. @defaultValue true */
  rejectUnauthorized?: boolean;
}

/** What `sendEmail` works from: the payload it is given, and the job its attempt runs for. */
export interface SendEmailInput {
  /** The job ID; the Message-ID and the outbox file name derive from it. */
  jobId: string;
  /** When the job was created (ISO 8601); used as the Date header so every attempt builds the same message. */
  createdAt: string;
  /** The job's payload, validated again here because it crossed a process boundary. */
  payload: unknown;
  /** The job execution (its first run ID), which the ledger keys a sent message by. */
  execution?: string;
}

/** The ledger step of a message the mail server accepted. */
export const sentStep = 'send';

/** The Message-ID for a job: stable across attempts, so a retried send is recognisably the same message. */
export function messageIdFor(jobId: string): string {
  return `<${encodeURIComponent(jobId)}@durable-jobs>`;
}

/**
 * The outbox file name for a job: a readable stem (the ID lower-cased, characters outside
 * `a-z0-9._-` as `_`, at most 40) plus 16 hex digits of the ID's SHA-256. At most 62 characters
 * whatever the ID's length, and two IDs that differ only in case (`Job-A`, `job-a`) never share a
 * file, even on a case-insensitive file system.
 */
export function outboxFileFor(jobId: string): string {
  const stem = jobId.toLowerCase().replace(/[^a-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(0, 40);
  return `${stem}-${createHash('sha256').update(jobId).digest('hex').slice(0, 16)}.eml`;
}

/** The file name used before names were hashed; a retry of a job from then finds its message there. */
function legacyOutboxFileFor(jobId: string): string {
  return `${encodeURIComponent(jobId)}.eml`;
}

/** File-system errors a retry cannot cure: the outbox itself is unusable, so the job fails at once. */
const unwritableCodes = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG', 'EEXIST']);

/** Builds the email activities. */
export function createEmailActivities(deps: EmailDeps) {
  const timeout = deps.smtpTimeoutMs ?? 10_000;
  const render = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  function buildMessage(input: SendEmailInput): Mail.Options {
    const payload = parseJobPayload('send-email', sendEmailPayload, input.payload);
    return {
      from: deps.from,
      to: payload.to,
      subject: payload.subject,
      text: renderBody(payload),
      messageId: messageIdFor(input.jobId),
      date: new Date(input.createdAt),
      headers: { 'X-Job-Id': input.jobId, 'X-User-Id': payload.userId },
    };
  }

  async function writeToOutbox(input: SendEmailInput, message: Mail.Options): Promise<SendEmailResult> {
    const file = path.join(deps.outboxDir, outboxFileFor(input.jobId));
    const messageId = messageIdFor(input.jobId);
    const legacy = path.join(deps.outboxDir, legacyOutboxFileFor(input.jobId));
    for (const existing of [file, legacy]) {
      if (await exists(existing)) return { messageId, transport: 'outbox', path: existing, alreadySent: true };
    }
    try {
      await mkdir(deps.outboxDir, { recursive: true });
      const rendered = await render.sendMail(message);
      // A temp file, fsynced, renamed: a full disk or a crash mid-write never leaves a half message under the final name.
      await writeFileAtomic(file, rendered.message as Buffer);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code && unwritableCodes.has(code)) {
        throw nonRetryable(SendEmailErrorType.OutboxUnwritable, `cannot write to the outbox ${deps.outboxDir} (${code}); fix OUTBOX_DIR, then redrive: ${describeError(err)}`, err);
      }
      throw diskFullFailure(err, { dir: deps.outboxDir, setting: 'OUTBOX_DIR' }) ?? err;
    }
    return { messageId, transport: 'outbox', path: file, alreadySent: false };
  }

  /**
   * Sends over a connection of this attempt's own. When the attempt is cancelled (job cancelled,
   * attempt timed out, worker shutting down) the signal closes that connection at once and detaches
   * the message from it, so a transaction still short of the final "." of DATA delivers nothing and
   * the retry sends the only copy.
   */
  async function sendOverSmtp(smtpUrl: string, input: SendEmailInput, message: Mail.Options, signal: AbortSignal): Promise<SendEmailResult> {
    // nodemailer honours a message's AbortSignal in its pooled transport (one connection here).
    const transport = nodemailer.createTransport({
      pool: true,
      maxConnections: 1,
      url: smtpUrl,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      requireTLS: requiresTls(smtpUrl),
      // A CA of our own is trusted besides the built-in ones, which `ca` alone would replace.
      tls: { ca: deps.tls?.ca === undefined ? undefined : [...rootCertificates, deps.tls.ca], rejectUnauthorized: deps.tls?.rejectUnauthorized ?? true },
    } as Parameters<typeof nodemailer.createTransport>[0]);
    try {
      // No instrumentation covers nodemailer: the conversation gets a span of its own (the server's host only, never the URL's credentials).
      await traced('smtp.send', { 'job.id': input.jobId, 'server.address': smtpHost(smtpUrl) }, () => transport.sendMail({ ...message, signal } as Mail.Options));
    } catch (err) {
      signal.throwIfAborted();
      throw classifySmtpError(err);
    } finally {
      transport.close();
    }
    return { messageId: messageIdFor(input.jobId), transport: 'smtp', alreadySent: false };
  }

  /**
   * Over SMTP, a message the server accepted is recorded in the ledger at once; an attempt that
   * finds it recorded (the one before accepted it, then its completion was lost) sends nothing.
   */
  async function sendOnce(smtpUrl: string, input: SendEmailInput, message: Mail.Options): Promise<SendEmailResult> {
    const key = deps.ledger && input.execution ? { jobId: input.jobId, execution: input.execution, step: sentStep } : undefined;
    if (key) {
      const sent = await recordedResult<SendEmailResult>(deps.ledger!, key);
      if (sent) return { ...sent, alreadySent: true };
    }
    const result = await whileHeartbeating((signal) => sendOverSmtp(smtpUrl, input, message, signal));
    if (key) await recordSent(deps.ledger!, key, result);
    return result;
  }

  return {
    /** Sends one email; retried on the `send-email` schedule. Heartbeats while it waits, so a cancellation reaches it. */
    sendEmail: async (payload: unknown): Promise<SendEmailResult> => {
      const input = emailInput(payload);
      const message = buildMessage(input);
      const { smtpUrl } = deps;
      return smtpUrl ? sendOnce(smtpUrl, input, message) : writeToOutbox(input, message);
    },
  };
}

/**
 * The job a `sendEmail` attempt sends for. The Date header is when the step was first scheduled,
 * the same for every attempt; a step scheduled by a workflow of 0.2 carries its own.
 */
function emailInput(payload: unknown): SendEmailInput {
  const { jobId, execution } = currentJob();
  const legacy = payload as Partial<Record<keyof SendEmailInput, unknown>> | null;
  if (!currentJob().headed && typeof legacy === 'object' && legacy !== null && typeof legacy.createdAt === 'string' && 'payload' in legacy) {
    return { jobId, execution, createdAt: legacy.createdAt, payload: legacy.payload };
  }
  return { jobId, execution, createdAt: new Date(Context.current().info.scheduledTimestampMs).toISOString(), payload };
}

/**
 * Records a message the mail server accepted. Nothing undoes a sent message, so this is no
 * transaction around the send: the row is written right after the server's reply. A failed write
 * (the database down) is retried for about 3 s, then logged, and the attempt still succeeds: failing
 * it would make its retry send again for sure, while only a crash before the completion reaches
 * Temporal could now (docs/guarantees.md).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any catalog's tables, the ledger among them
async function recordSent(db: Kysely<any>, key: LedgerKey, result: SendEmailResult): Promise<void> {
  const row = { job_id: key.jobId, execution: key.execution, step: key.step, result: JSON.stringify(result), created_at: new Date().toISOString() };
  for (let attempt = 1; ; attempt++) {
    try {
      await (db as Kysely<LedgerDatabase>).insertInto('ledger').values(row).onConflict((oc) => oc.doNothing()).execute();
      return;
    } catch (err) {
      if (attempt >= 5) {
        log.warn('email:unrecorded — the mail server accepted the message, but the ledger could not record it: should this attempt\'s completion be lost, its retry sends it again', { jobId: key.jobId, error: describeError(err) });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * A login over plain `smtp://` to another machine must upgrade with STARTTLS first, or the
 * password would cross the network in clear; a server that offers no STARTTLS is then refused.
 * Loopback (a local relay, the tests) is exempt, and `?requireTLS=false` in the URL opts out.
 */
export function requiresTls(smtpUrl: string): boolean {
  const url = new URL(smtpUrl);
  if (url.protocol !== 'smtp:' || (!url.username && !url.password)) return false;
  if (url.searchParams.get('requireTLS') === 'false') return false;
  return !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) && !url.hostname.startsWith('127.');
}

/** The SMTP server's host name, for a span: nothing else of the URL, which may carry credentials. */
function smtpHost(smtpUrl: string): string {
  try {
    return new URL(smtpUrl).hostname;
  } catch {
    return 'unknown';
  }
}
