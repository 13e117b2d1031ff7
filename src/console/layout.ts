// The page shell every console page shares: navigation, the signed-in user, the CSRF token htmx
// sends with each request, and the scripts (all served from this origin: the CSP allows no other).
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { ConsoleUser } from './users';

/** Server-rendered markup: every interpolated value is escaped by `html`. */
export type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What the shell needs to know of the request. */
export interface PageFrame {
  title: string;
  /** Which navigation entry is current. */
  section: 'overview' | 'jobs' | 'dead-letters' | 'schedules' | 'tasks';
  user: ConsoleUser;
  csrf: string;
  /** Whether the person signed in (false for the loopback console's `local`, who cannot sign out). */
  signedIn: boolean;
}

const sections: [PageFrame['section'], string, string][] = [
  ['overview', 'Overview', '/'],
  ['jobs', 'Jobs', '/jobs'],
  ['dead-letters', 'Dead letters', '/dead-letters'],
  ['schedules', 'Schedules', '/schedules'],
  ['tasks', 'Bulk tasks', '/tasks'],
];

const htmxConfig = JSON.stringify({ includeIndicatorStyles: false, allowEval: false, allowScriptTags: false, historyCacheSize: 0 });

/** A whole page: the shell around `body`. */
export function page(frame: PageFrame, body: Markup): Markup {
  const headers = JSON.stringify({ 'X-CSRF-Token': frame.csrf });
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content="${htmxConfig}">
<title>${frame.title} · durable-jobs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/console.css">
<link rel="stylesheet" href="/assets/uPlot.min.css">
<script src="/assets/htmx.min.js" defer></script>
<script src="/assets/uPlot.iife.min.js" defer></script>
<script src="/assets/console.js" defer></script>
</head>
<body hx-headers="${headers}">
<header>
  <a class="brand" href="/">durable-jobs</a>
  <nav aria-label="Sections">
    <ul>${sections.map(([key, label, href]) => html`<li><a href="${href}"${key === frame.section ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul>
  </nav>
  <div class="who">
    <span>${frame.user.name} (${frame.user.role})</span>
    ${frame.signedIn ? html`<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${frame.csrf}"><button type="submit">Sign out</button></form>` : ''}
  </div>
</header>
<main id="main">
<h1>${frame.title}</h1>
${body}
</main>
</body>
</html>`;
}

/**
 * A region that refreshes itself every few seconds while the page is open: htmx fetches the same
 * URL again and swaps in the region's new markup (forms stay outside it, so nothing typed is lost).
 */
export function live(id: string, url: string, body: Markup, seconds = 5): Markup {
  return html`<div id="${id}" hx-get="${url}" hx-trigger="every ${String(seconds)}s" hx-select="#${id}" hx-swap="outerHTML">${body}</div>`;
}

/** A form that changes something: POST, with the session's CSRF token. */
export function actionForm(action: string, csrf: string, body: Markup, attrs: { confirm?: string; className?: string } = {}): Markup {
  return html`<form method="post" action="${action}"${attrs.className ? html` class="${attrs.className}"` : ''}${attrs.confirm ? html` data-confirm="${attrs.confirm}"` : ''}><input type="hidden" name="_csrf" value="${csrf}">${body}</form>`;
}

/** An ISO time as a `<time>` element, in the console's one format: UTC, 24-hour (as its charts). */
export function time(iso: string | undefined): Markup {
  return iso ? html`<time datetime="${iso}">${timeText(iso)}</time>` : html`–`;
}

/** An ISO time in the console's one format, as text: `2026-12-04 18:02:11 UTC`. */
export function timeText(iso: string): string {
  return iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC');
}

/** A notice above a page's content. */
export function notice(kind: 'error' | 'ok' | 'info', text: Markup | string): Markup {
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}
