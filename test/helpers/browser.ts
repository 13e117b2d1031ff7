import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCommand } from './processes';

/** Debian's Chromium, or CHROMIUM_PATH. `.ci/run` installs it. */
export function chromiumPath(): string {
  const candidate = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(candidate)) throw new Error(`no Chromium at ${candidate}: install it (apt-get install chromium) or set CHROMIUM_PATH`);
  return candidate;
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
