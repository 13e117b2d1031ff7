// What the console answers when it will not do or show something: a page of its own style that
// says why and offers the way on (sign in, or back to the overview); plain text to htmx, whose
// fragment requests show the text themselves.
import type { Context } from 'hono';
import { html } from 'hono/html';

/** The refusals the console gives, with the heading and the way on of each. */
const kinds = {
  401: { title: 'Sign in first', href: '/login', link: 'Sign in' },
  403: { title: 'Not allowed', href: '/', link: 'Back to the overview' },
  429: { title: 'Too many attempts', href: '/login', link: 'Back to sign-in' },
} as const;

/**
 * Refuses the request with `status` and `message` (escaped). `retryAfterSeconds` sets `Retry-After`,
 * which a 429 always carries.
 */
export function refusal(c: Context, status: keyof typeof kinds, message: string, options: { retryAfterSeconds?: number } = {}): Response | Promise<Response> {
  if (options.retryAfterSeconds !== undefined) c.header('retry-after', String(Math.max(1, Math.ceil(options.retryAfterSeconds))));
  if (c.req.header('hx-request') !== undefined) return c.text(message, status);
  const kind = kinds[status];
  return c.html(
    html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${kind.title} · durable-jobs</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/console.css"></head>
<body><main id="main" class="login"><h1>${kind.title}</h1><p class="notice error" role="alert">${message}</p><p><a href="${kind.href}">${kind.link}</a></p></main></body></html>`,
    status,
  );
}
