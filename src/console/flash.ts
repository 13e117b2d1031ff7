// What an action says after it redirects: a notice carried in a short-lived cookie to the next
// page and shown once there. A cookie rather than a `?notice=` parameter, so no link from
// elsewhere can make the console say something it did not.
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { ConsoleEnv } from './context';
import { notice, type Markup } from './layout';

/** The flash cookie's name. */
const flashCookie = 'dj_flash';

/** Longest notice text kept, in characters (a cookie holds about 4 KB). */
const maxText = 600;

/** A notice for the next page. */
export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

/** Redirects (303) to `location`, where `flash` will be shown once. */
export function redirectWithFlash(c: Context<ConsoleEnv>, location: string, flash: Flash): Response {
  const value = Buffer.from(JSON.stringify({ kind: flash.kind, text: flash.text.slice(0, maxText) })).toString('base64url');
  setCookie(c, flashCookie, value, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: 60 });
  return c.redirect(location, 303);
}

/** The notice waiting for this page, if any, as markup; it is shown once. */
export function takeFlash(c: Context<ConsoleEnv>): Markup | string {
  const value = getCookie(c, flashCookie);
  if (value === undefined) return '';
  deleteCookie(c, flashCookie, { path: '/' });
  try {
    const flash = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<Flash>;
    if ((flash.kind === 'ok' || flash.kind === 'error') && typeof flash.text === 'string') return notice(flash.kind, flash.text.slice(0, maxText));
  } catch {
    // A cookie this console did not write: ignored.
  }
  return '';
}
