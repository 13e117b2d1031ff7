import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { missingNamespaceError } from '../shared/missing-namespace';

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
    throw missingNamespaceError(namespace, address, err);
  }
}
