import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCommand } from './processes';

const browserNames = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const macChrome = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';

/** CHROMIUM_PATH, else a Chromium or Chrome on PATH (or macOS's Chrome). `.ci/run` installs Debian's chromium. */
export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) {
    if (!existsSync(process.env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist`);
    return process.env.CHROMIUM_PATH;
  }
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const found = [...dirs.flatMap((dir) => browserNames.map((name) => path.join(dir, name))), macChrome].find((file) => existsSync(file));
  if (!found) throw new Error(`no Chromium or Chrome found (looked for ${browserNames.join(', ')} on PATH): install one (apt-get install chromium) or set CHROMIUM_PATH`);
  return found;
}

/** Where tests keep what a person may want to look at after a run (gitignored), e.g. `web-ui-job.png`. */
export const artifactsDir = path.resolve(__dirname, '../../test-artifacts');

/** One row of the Temporal Web UI's event history table. */
export interface HistoryRow {
  eventId: number;
  /** As the UI names it, e.g. `Activity Task Scheduled`. */
  eventType: string;
  /** The row's details column as text, e.g. `Activity Type sendEmail`. */
  details: string;
  /** The row's link to its event: `/namespaces/<ns>/workflows/<id>/<run id>/history/events/<event id>`. */
  href: string;
}

/** The rows of the event history table in a rendered workflow page, by event ID. */
export function historyRows(dom: string): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (const [, attributes, body] of dom.matchAll(/<tr([^>]*data-testid="event-summary-row"[^>]*)>([\s\S]*?)<\/tr>/g)) {
    const cells = [...body!.matchAll(/<td([^>]*)>([\s\S]*?)<\/td>/g)];
    const typeCell = cells.findIndex(([, attrs]) => /class="truncate"/.test(attrs!));
    rows.push({
      eventId: Number(/data-eventid="(\d+)"/.exec(attributes!)?.[1]),
      eventType: typeCell < 0 ? '' : text(cells[typeCell]![2]!),
      details: typeCell < 0 ? '' : cells.slice(typeCell + 1).map((c) => text(c[2]!)).join(' '),
      href: decodeEntities(/href="([^"]*)"/.exec(body!)?.[1] ?? ''),
    });
  }
  return rows.sort((a, b) => a.eventId - b.eventId);
}

function text(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
}

function decodeEntities(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&nbsp;/g, ' ').replace(/&amp;/g, '&');
}

/** Renders a page in headless Chromium, as {@link renderedDom} does, and saves a PNG screenshot of it. */
export async function screenshot(url: string, file: string, budgetMs = 15_000): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await withChromium(url, budgetMs, [`--screenshot=${file}`, '--window-size=1440,1800', '--hide-scrollbars']);
}

/**
 * Loads a page in headless Chromium, lets its scripts run, and returns the rendered DOM. Background
 * networking is off, so the browser talks only to the page's own (loopback) server.
 */
export async function renderedDom(url: string, budgetMs = 15_000): Promise<string> {
  return withChromium(url, budgetMs, ['--dump-dom']);
}

async function withChromium(url: string, budgetMs: number, output: string[]): Promise<string> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'chromium-'));
  try {
    const flags = [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${profile}`, `--virtual-time-budget=${budgetMs}`, ...output, url,
    ];
    const ran = await runCommand(chromiumPath(), flags);
    if (ran.code !== 0) throw new Error(`chromium exited ${ran.code}: ${ran.stderr.slice(-500)}`);
    return ran.stdout;
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}
