import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * The custom search attributes jobs are started with, by name and type. The dev server gets them as
 * `--search-attribute` flags; a cluster at setup (deploy/temporal/scripts); the test server here.
 */
export const customSearchAttributes = { JobType: 'Keyword' } as const;

/** Registers {@link customSearchAttributes} on a namespace; already-registered ones are left as they are. */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  for (const name of Object.keys(customSearchAttributes)) {
    try {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: { [name]: keyword } });
    } catch (err) {
      if (!(isGrpcServiceError(err) && err.code === GRPC_ALREADY_EXISTS)) throw err;
    }
  }
}

/** gRPC ALREADY_EXISTS: the attribute is registered already. */
const GRPC_ALREADY_EXISTS = 6;
