// The generate-report file formats: checkpoint lines of partial sums, and the finished CSV or JSON.
import { readFile } from 'node:fs/promises';
import type { GenerateReportPayload } from '../jobs/generate-report';

/** Position after the last entry read, in the order pages are read. */
export interface ReportCursor {
  createdAt: string;
  paymentId: string;
  leg: string;
}

/** Heartbeat details of `aggregateReportPages`: entries folded in so far and where the next page starts. */
export interface ReportHeartbeat {
  /** Entries aggregated so far. */
  done: number;
  /** Entries in the period when the report started. */
  total?: number;
  /** After the last entry read; unset before the first page. */
  cursor?: ReportCursor;
}

/** Sums of one account in one currency. `[debits, credits, entries]`; debits is the total of negative amounts, as a positive number. */
export type Sums = [number, number, number];
/** Sums per `<account>\n<currency>` key. */
export type Aggregate = Map<string, Sums>;
interface CheckpointLine extends ReportHeartbeat {
  rows: [string, string, ...Sums][];
}

/** The period and accounts a report covers. */
export interface Period {
  from: string;
  to: string;
  accounts?: string[];
}

/** Adds an amount (or ready sums) to an account's row. */
export function add(rows: Aggregate, key: string, amount: number, sums: Sums = amount < 0 ? [-amount, 0, 1] : [0, amount, 1]): void {
  const row = rows.get(key);
  if (row) for (let i = 0; i < 3; i++) row[i] = row[i]! + sums[i]!;
  else rows.set(key, [...sums]);
}

/** One checkpoint line: the progress and the sums of one page. */
export function lineOf(progress: ReportHeartbeat, rows: [string, Sums][]): string {
  const line: CheckpointLine = { ...progress, rows: rows.map(([key, sums]) => [...(key.split('\n') as [string, string]), ...sums]) };
  return `${JSON.stringify(line)}\n`;
}

/** The aggregate at the first target cursor found in the checkpoint file, else an empty one. */
export async function loadCheckpoint(file: string, targets: ReportHeartbeat[]): Promise<{ done: number; cursor?: ReportCursor; rows: Aggregate }> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const rows: Aggregate = new Map();
  const found = new Map<number, { done: number; cursor: ReportCursor; rows: Aggregate }>();
  for (const raw of text.split('\n')) {
    if (!raw) continue;
    let line: CheckpointLine;
    try {
      line = JSON.parse(raw) as CheckpointLine;
    } catch {
      break; // a line cut short by a crash ends the usable part of the file
    }
    for (const [account, currency, ...sums] of line.rows) add(rows, `${account}\n${currency}`, 0, sums);
    const index = targets.findIndex((t) => sameCursor(t.cursor, line.cursor));
    if (index >= 0 && line.cursor) found.set(index, { done: line.done, cursor: line.cursor, rows: new Map([...rows].map(([k, v]) => [k, [...v] as Sums])) });
    if (index === 0) break;
  }
  return found.get(0) ?? found.get(1) ?? { done: 0, rows: new Map() };
}

function sameCursor(a?: ReportCursor, b?: ReportCursor): boolean {
  return !!a && !!b && a.createdAt === b.createdAt && a.paymentId === b.paymentId && a.leg === b.leg;
}

/** The finished report, as CSV or JSON. */
export function render(payload: GenerateReportPayload, period: Period, entries: number, rows: Aggregate): string {
  const sorted = [...rows].map(([key, [debits, credits, count]]) => {
    const [accountId, currency] = key.split('\n') as [string, string];
    return { accountId, currency, debits, credits, net: credits - debits, entries: count };
  });
  sorted.sort((a, b) => cmp(a.accountId, b.accountId) || cmp(a.currency, b.currency));
  if (payload.format === 'json') return `${JSON.stringify({ from: period.from, to: period.to, accounts: period.accounts, entries, rows: sorted }, null, 2)}\n`;
  const lines = sorted.map((r) => [csvField(r.accountId), csvField(r.currency), r.debits, r.credits, r.net, r.entries].join(','));
  return ['account_id,currency,debits,credits,net,entries', ...lines].join('\n') + '\n';
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Rows and entries of a finished report, read back for a repeated attempt. */
export function summarise(content: string, format: GenerateReportPayload['format']): { rows: number; entries: number } {
  if (format === 'json') {
    const report = JSON.parse(content) as { entries: number; rows: unknown[] };
    return { rows: report.rows.length, entries: report.entries };
  }
  const lines = content.split('\n').slice(1).filter(Boolean);
  return { rows: lines.length, entries: lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(',') + 1)), 0) };
}

