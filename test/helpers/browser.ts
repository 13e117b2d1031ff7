import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, errors, type Locator, type Page } from 'playwright-core';

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

/** How long a page may take to show what a test waits for: the Web UI renders after its API calls, on a busy machine. */
const pageTimeoutMs = 30_000;

/**
 * Opens `url` in headless Chromium (driven by playwright-core; playwright's own browser download
 * is not used), hands the loaded page to `use`, and closes the browser whatever happens. The page
 * is 1440×1800, so screenshots show a whole job. Playwright turns background networking off, so
 * the browser talks only to the page's own (loopback) servers.
 */
export async function withPage<T>(url: string, use: (page: Page) => Promise<T>): Promise<T> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1800 } });
    page.setDefaultTimeout(pageTimeoutMs);
    const response = await page.goto(url);
    if (!response?.ok()) throw new Error(`GET ${url}: ${response?.status() ?? 'no response'}`);
    return await use(page);
  } finally {
    await browser.close();
  }
}

/** Saves a PNG of the page's viewport at `file` (under {@link artifactsDir}, for a person to look at). */
export async function saveScreenshot(page: Page, file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file });
}

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

/** The Web UI's event history rows. */
const eventRows = (page: Page): Locator => page.locator('tr[data-testid="event-summary-row"]');

/** The text a person reads in an element, whitespace collapsed. */
const shownText = async (locator: Locator): Promise<string> => (await locator.allInnerTexts()).join(' ').replace(/\s+/g, ' ').trim();

/**
 * The rows of a workflow page's event history table, by event ID, once a row of `lastEventType`
 * (e.g. `Workflow Execution Completed`) is shown: the history of a closed workflow is then complete.
 */
export async function historyRows(page: Page, lastEventType: string): Promise<HistoryRow[]> {
  await eventRows(page).locator('td.truncate').getByText(lastEventType, { exact: true }).waitFor();
  const rows: HistoryRow[] = [];
  for (const row of await eventRows(page).all()) {
    const typeCell = row.locator('td.truncate');
    const hasType = (await typeCell.count()) > 0;
    rows.push({
      eventId: Number(await row.getAttribute('data-eventid')),
      eventType: hasType ? await shownText(typeCell) : '',
      // The cells right of the type cell: the details the table previews.
      details: hasType ? await shownText(row.locator('td.truncate ~ td')) : '',
      href: (await row.locator('a').first().getAttribute('href')) ?? '',
    });
  }
  return rows.sort((a, b) => a.eventId - b.eventId);
}

/** A workflow page's Input panel (its first payload editor), once it has rendered a payload. */
export async function inputPanelText(page: Page): Promise<string> {
  const input = page.locator('[data-testid="input-and-result"] > div').filter({ has: page.getByRole('heading', { name: 'Input', exact: true }) });
  const editor = input.locator('.cm-content');
  await editor.filter({ hasText: /\S/ }).waitFor();
  // Until the codec server's answer is in, the panel may read `null` (a pair of suites side by side
  // once read it then): wait, within the page timeout, for what the answer shows.
  try {
    await editor.filter({ hasNotText: /^\s*null\s*$/ }).waitFor();
  } catch (err) {
    if (!(err instanceof errors.TimeoutError)) throw err;
  }
  return shownText(editor);
}

/** Whether the page shows `text` (in an element's text, not an attribute) within the page timeout. */
export async function shows(page: Page, text: string): Promise<boolean> {
  try {
    await page.getByText(text).first().waitFor();
    return true;
  } catch (err) {
    if (err instanceof errors.TimeoutError) return false;
    throw err;
  }
}
