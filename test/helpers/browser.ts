import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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

/**
 * Loads a page in headless Chromium, lets its scripts run, and returns the rendered DOM. Background
 * networking is off, so the browser talks only to the page's own (loopback) server.
 */
export async function renderedDom(url: string, budgetMs = 15_000): Promise<string> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'chromium-'));
  try {
    const flags = [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${profile}`, `--virtual-time-budget=${budgetMs}`, '--dump-dom', url,
    ];
    const ran = await runCommand(chromiumPath(), flags);
    if (ran.code !== 0) throw new Error(`chromium exited ${ran.code}: ${ran.stderr.slice(-500)}`);
    return ran.stdout;
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}
