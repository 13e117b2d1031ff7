import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './errors';

/** The modules a project names for the library's runners: its catalog (jobctl) and its worker (npm start, npm run worker). */
export type ProjectModuleKind = 'catalog' | 'worker';

const envOf: Record<ProjectModuleKind, string> = { catalog: 'DURABLE_JOBS_CATALOG', worker: 'DURABLE_JOBS_WORKER' };

/** Where a project module's path came from, for messages. */
export interface ProjectModuleRef {
  /** The module's absolute path (or package name), ready for `require`. */
  path: string;
  /** `--catalog`, `DURABLE_JOBS_CATALOG` or `package.json (<file>)`. */
  source: string;
}

/**
 * Finds the module of a kind, by one convention with the usual precedence: the flag
 * (`--catalog <module>`), else the environment variable (`DURABLE_JOBS_CATALOG`), else the
 * `"durable-jobs": { "catalog": "./dist/catalog.js" }` field of the nearest package.json from the
 * working directory up. Relative paths are taken from the working directory (flag, variable) or
 * the package.json's folder. `undefined` when none names one.
 */
export function findProjectModule(kind: ProjectModuleKind, flag?: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ProjectModuleRef | undefined {
  if (flag) return { path: resolveFrom(cwd, flag), source: `--${kind}` };
  const fromEnv = env[envOf[kind]];
  if (fromEnv) return { path: resolveFrom(cwd, fromEnv), source: envOf[kind] };
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const named = packageField(file, kind);
      if (named) return { path: resolveFrom(dir, named), source: `package.json (${file}) "durable-jobs".${kind}` };
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Loads a project module and returns its export named after its kind (`catalog`, `worker`), or
 * its default export. Throws {@link ConfigError} naming where the path came from when the module
 * cannot be loaded or does not export one that `isValid` accepts.
 */
export function loadProjectModule<T>(ref: ProjectModuleRef, kind: ProjectModuleKind, isValid: (value: unknown) => value is T, expected: string): T {
  let loaded: Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path known only at run time
    loaded = require(ref.path) as Record<string, unknown>;
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new ConfigError([{ path: ref.source, message: `cannot load ${ref.path}: ${why}` }], { cause: err });
  }
  const value = loaded[kind] ?? loaded.default;
  if (!isValid(value)) throw new ConfigError([{ path: ref.source, message: `${ref.path} exports no ${kind}: export ${expected} as "${kind}" (or as the default export)` }]);
  return value;
}

function resolveFrom(dir: string, spec: string): string {
  // A bare name is a package (`@acme/jobs/catalog`); anything else is a path.
  if (!spec.startsWith('.') && !path.isAbsolute(spec)) {
    try {
      return require.resolve(spec, { paths: [dir] });
    } catch {
      return path.resolve(dir, spec);
    }
  }
  return path.resolve(dir, spec);
}

/**
 * The module path a package.json names for a kind, if it names one. A package.json that is not
 * JSON, or names something other than a path, is refused naming the file (silence would read as
 * "no catalog configured").
 */
function packageField(file: string, kind: ProjectModuleKind): string | undefined {
  let parsed: { 'durable-jobs'?: Record<string, unknown> };
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed;
  } catch (err) {
    throw new ConfigError([{ path: file, message: `is not valid JSON (${err instanceof Error ? err.message : String(err)}); it is read for "durable-jobs".${kind}` }], { cause: err });
  }
  const value = parsed?.['durable-jobs']?.[kind];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new ConfigError([{ path: `${file} "durable-jobs".${kind}`, message: `must be a module path such as "./dist/${kind}.js", got ${JSON.stringify(value)}` }]);
  return value;
}
