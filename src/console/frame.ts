import type { Context } from 'hono';
import type { ConsoleEnv } from './context';
import type { PageFrame } from './layout';

/** The page frame of a request: its title and section, and the session's user and CSRF token. */
export function frameOf(c: Context<ConsoleEnv>, title: string, section: PageFrame['section']): PageFrame {
  const session = c.get('session');
  return { title, section, user: session.user, csrf: session.csrf, signedIn: c.get('signedIn') };
}
