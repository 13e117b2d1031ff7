// The parts of durable-jobs that need packages a project installs only when it uses them: they are
// optional peer dependencies (package.json), so that `npm install durable-jobs` builds no native
// module and brings no database driver, OpenTelemetry or web server a project does not use.
import { ErrorType, JobsError } from './errors';

/** Each optional part: what it is, in the words of the setting that turns it on, and its packages. */
export const optionalParts = {
  sqlite: { what: 'a SQLite jobs database', packages: ['better-sqlite3'] },
  postgres: { what: 'a PostgreSQL jobs database', packages: ['pg'] },
  tracing: {
    what: 'tracing (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER is set)',
    packages: [
      '@opentelemetry/api',
      '@opentelemetry/core',
      '@opentelemetry/resources',
      '@opentelemetry/sdk-node',
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/exporter-trace-otlp-grpc',
      '@opentelemetry/exporter-trace-otlp-http',
      '@opentelemetry/exporter-trace-otlp-proto',
      '@opentelemetry/instrumentation-pg',
      '@opentelemetry/instrumentation-undici',
      '@temporalio/interceptors-opentelemetry',
    ],
  },
  clientTracing: { what: "a traced client (JobClient's tracing option, or a tracer provider registered)", packages: ['@opentelemetry/api', '@temporalio/interceptors-opentelemetry'] },
  console: { what: 'the console', packages: ['hono', '@hono/node-server', 'htmx.org', 'uplot'] },
  testKit: { what: 'the test kit (durable-jobs/testing)', packages: ['@temporalio/testing'] },
} as const;

/** The name of an optional part. */
export type OptionalPart = keyof typeof optionalParts;

/** A part was asked for and a package it needs is not installed; the message is the command that installs them. */
export class MissingPackageError extends JobsError {
  constructor(
    readonly part: OptionalPart,
    readonly missing: readonly string[],
  ) {
    const them = missing.length === 1 ? `${missing[0]}, which is` : `${missing.join(', ')}, which are`;
    super(ErrorType.MissingPackage, `${optionalParts[part].what} needs ${them} not installed: npm install --save-exact${part === 'testKit' ? ' --save-dev' : ''} ${missing.map(pinned).join(' ')}`);
    // An install to do, not a fault in the code: uncaught (an import), Node prints the line, not frames.
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** The package at the version durable-jobs is tested with (its peer dependency), for the install command. */
function pinned(name: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the package's own manifest, next to dist/ and src/
  const peers = (require('../../package.json') as { peerDependencies?: Record<string, string> }).peerDependencies ?? {};
  const version = peers[name];
  return version ? `${name}@${version}` : name;
}

/** Whether `name` resolves from here (the project's node_modules, where npm puts a peer). */
function installed(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch (err) {
    // Present, but its main is not exported for require (an ESM-only entry): still installed.
    return (err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND';
  }
}

/** Throws MissingPackageError naming every package of `part` that is not installed. */
export function requirePart(part: OptionalPart): void {
  const missing = optionalParts[part].packages.filter((name) => !installed(name));
  if (missing.length > 0) throw new MissingPackageError(part, missing);
}

/** `load()` once every package of `part` is installed: the part's modules, loaded only when it is used. */
export function loadPart<T>(part: OptionalPart, load: () => T): T {
  requirePart(part);
  return load();
}
