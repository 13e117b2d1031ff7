// The console's static files: htmx and uPlot from their packages, the console's own stylesheet
// and script from console-assets/. Served from this origin, so the CSP needs no other.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Hono } from 'hono';
import type { ConsoleEnv } from './context';

// src/console/ and dist/console/ are both two levels below the package root.
const ownAssets = path.resolve(__dirname, '../../console-assets');

const files: Record<string, { file: () => string; type: string }> = {
  'htmx.min.js': { file: () => require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript' },
  'uPlot.iife.min.js': { file: () => require.resolve('uplot/dist/uPlot.iife.min.js'), type: 'text/javascript' },
  'uPlot.min.css': { file: () => require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css' },
  'console.css': { file: () => path.join(ownAssets, 'console.css'), type: 'text/css' },
  'console.js': { file: () => path.join(ownAssets, 'console.js'), type: 'text/javascript' },
};

/** `GET /assets/<name>` for the files above; anything else is 404. */
export function assetRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const cache = new Map<string, Buffer>();
  app.get('/assets/:name', async (c) => {
    const asset = files[c.req.param('name')];
    if (!asset) return c.notFound();
    const name = c.req.param('name');
    let body = cache.get(name);
    if (!body) cache.set(name, (body = await readFile(asset.file())));
    return c.body(new Uint8Array(body), 200, { 'content-type': `${asset.type}; charset=utf-8`, 'cache-control': 'public, max-age=300' });
  });
  return app;
}
