// The notice an action leaves for the page it redirects to ("redriven", "task started", or why it
// was refused): a short-lived cookie read once by the next page, so that the notice is never part
// of a URL someone could send around with words of their choosing in it.
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { describeError } from '../shared/errors';
import type { ConsoleEnv } from './context';
import { notice, type Markup } from './layout';

const noticeCookie = 'dj_notice';

/** What a notice says, and whether it is good news. */
export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

/** Redirects (303, so the next request is a GET) to `to`, where `text` is shown once. */
export function redirectWithNotice(c: Context<ConsoleEnv>, to: string, kind: Notice['kind'], text: string, secure: boolean): Response {
  const value = Buffer.from(JSON.stringify({ kind, text: text.slice(0, 2000) } satisfies Notice)).toString('base64url');
  setCookie(c, noticeCookie, value, { httpOnly: true, sameSite: 'Strict', secure, path: '/', maxAge: 60 });
  return c.redirect(to, 303);
}

/** Redirects back with an error's own words (an InvalidOptionError names its field). */
export function redirectWithError(c: Context<ConsoleEnv>, to: string, err: unknown, secure: boolean): Response {
  return redirectWithNotice(c, to, 'error', describeError(err), secure);
}

/** The notice left for this page, once: it is cleared as it is read. */
export function takeNotice(c: Context<ConsoleEnv>): Markup {
  const value = getCookie(c, noticeCookie);
  if (value === undefined) return html``;
  deleteCookie(c, noticeCookie, { path: '/' });
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<Notice>;
    if ((parsed.kind === 'ok' || parsed.kind === 'error') && typeof parsed.text === 'string') return notice(parsed.kind, parsed.text);
  } catch {
    // A cookie this console did not write: shown as nothing.
  }
  return html``;
}
