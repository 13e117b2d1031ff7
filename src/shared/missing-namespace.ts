// A namespace the Temporal server does not have, said one way by the worker and jobctl: naming
// TEMPORAL_NAMESPACE and how to create it, instead of the server's bare `5 NOT_FOUND`.
import { ConfigError } from './errors';

/** The {@link ConfigError} of a namespace the server at `address` (when known) lacks. */
export function missingNamespaceError(namespace: string, address: string | undefined, cause: unknown): ConfigError {
  const server = address ? `the server at ${address}` : 'the Temporal server';
  return new ConfigError(
    [{ path: 'TEMPORAL_NAMESPACE', message: `${server} has no namespace "${namespace}": create it (temporal operator namespace create --namespace ${namespace}), or name an existing one` }],
    { cause },
  );
}

/**
 * The namespace `err` says the server lacks: the SDK client's `NamespaceNotFoundError`, or the
 * server's own `5 NOT_FOUND: Namespace <name> is not found.` (from a call the client passes on).
 */
export function missingNamespaceOf(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const named = (err as { namespace?: unknown }).namespace;
  if (err.name === 'NamespaceNotFoundError' && typeof named === 'string') return named;
  const code = (err as { code?: unknown }).code;
  return code === 5 ? /Namespace (\S+) is not found/.exec(err.message)?.[1] : undefined;
}
