import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { ConfigError } from '../shared/errors';

/** gRPC NOT_FOUND. */
const GRPC_NOT_FOUND = 5;

/**
 * Stops the worker at start, naming TEMPORAL_NAMESPACE, when the server has no such namespace
 * (instead of the server's bare `5 NOT_FOUND` from the first call that needs it).
 */
export async function assertNamespace(connection: Connection, namespace: string, address: string): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND)) throw err;
    throw new ConfigError(
      [{ path: 'TEMPORAL_NAMESPACE', message: `the server at ${address} has no namespace "${namespace}": create it (temporal operator namespace create --namespace ${namespace}), or name an existing one` }],
      { cause: err },
    );
  }
}
