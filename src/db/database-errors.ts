// Which errors of the jobs database waiting can fix, which a setting fixes, and which nothing but a
// code or schema change fixes: one classification for every activity that touches the database.
import type { ApplicationFailure } from '@temporalio/common';
import { ErrorType, describeError } from '../shared/errors';
import { nonRetryable, retryable } from '../shared/failures';

/**
 * What kind of database failure an error is:
 * - `unavailable`: the database cannot serve us now (an outage, a restart, a lock): waiting fixes it;
 * - `config`: it refuses our login or has no such database (a rotated password): a setting fixes it;
 * - `rejected`: it refuses the statement (a constraint, a missing table): retrying cannot help.
 */
export type DatabaseErrorKind = 'unavailable' | 'config' | 'rejected';

/** A classified database error: its kind, and the code it was classified by (SQLSTATE, SQLite or Node code, or the driver's words). */
export interface DatabaseErrorClass {
  kind: DatabaseErrorKind;
  code: string;
}

/**
 * PostgreSQL SQLSTATEs and classes: 08 connection exceptions, 57P01-03 admin/crash shutdown and
 * "cannot connect now" (starting up), 57014 a cancelled (timed-out) statement, 40001 serialization
 * failure, 40P01 deadlock, 53 insufficient resources (53300 too many connections), 55P03 lock not
 * available, 58 system I/O errors. Node socket codes for a server that is down or unreachable.
 * SQLite's busy and locked (the busy timeout ran out), a full or failing disk.
 */
const unavailable = /^(08\w{3}|57P0[1-3]|57014|40001|40P01|53\w{3}|55P03|58\w{3}|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|EAI_AGAIN|SQLITE_BUSY\w*|SQLITE_LOCKED\w*|SQLITE_FULL|SQLITE_IOERR\w*|SQLITE_PROTOCOL)$/;
/** 28 invalid authorization (28P01 invalid_password), 3D000 no such database, 42501 insufficient privilege, an unknown host; SQLite's read-only or unopenable file. */
const config = /^(28\w{3}|3D000|42501|ENOTFOUND|SQLITE_READONLY\w*|SQLITE_CANTOPEN\w*|SQLITE_PERM|SQLITE_AUTH\w*)$/;
/** 23 integrity constraint violations, 42 syntax or undefined objects (a schema a migration has not reached), 22 data exceptions; SQLite's constraints. */
const rejected = /^(23\w{3}|42\w{3}|22\w{3}|SQLITE_CONSTRAINT\w*|SQLITE_MISMATCH|SQLITE_RANGE|SQLITE_TOOBIG)$/;
/** What node-postgres says, without a code, when its connection drops or cannot be made in time. */
const droppedConnection = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated due to connection timeout)/;
/** SQLite reports a statement against a schema it lacks as a plain SQLITE_ERROR. */
const missingSchema = /^no such (table|column|index)|has no column named/;

/** How deep a `cause` chain (or an AggregateError's `errors`) is searched for a code. */
const maxDepth = 4;

/** Classifies a database driver's error, looking through `cause` chains; `undefined` for anything else. */
export function classifyDatabaseError(err: unknown, depth = 0): DatabaseErrorClass | undefined {
  if (depth > maxDepth || typeof err !== 'object' || err === null) return undefined;
  const { code, message, cause, errors } = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (config.test(code)) return { kind: 'config', code };
    if (unavailable.test(code)) return { kind: 'unavailable', code };
    if (rejected.test(code)) return { kind: 'rejected', code };
    if (code === 'SQLITE_ERROR' && typeof message === 'string' && missingSchema.test(message)) return { kind: 'rejected', code };
  }
  if (typeof message === 'string' && droppedConnection.test(message)) return { kind: 'unavailable', code: 'connection-lost' };
  for (const inner of [cause, ...(Array.isArray(errors) ? errors : [])]) {
    const found = classifyDatabaseError(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The failure an activity throws for a database error: `jobs:database-unavailable` and
 * `jobs:database-config` are retryable (on the step's schedule), `jobs:database-rejected` is not.
 * `undefined` when the error is not a database error we know.
 */
export function databaseFailure(err: unknown): ApplicationFailure | undefined {
  const found = classifyDatabaseError(err);
  if (!found) return undefined;
  const detail = `${describeError(err)} (${found.code})`;
  switch (found.kind) {
    case 'unavailable':
      return retryable(ErrorType.DatabaseUnavailable, `the jobs database is unavailable: ${detail}; retried on the step's schedule`, err);
    case 'config':
      return retryable(
        ErrorType.DatabaseConfig,
        `the jobs database refused this worker's login or database: ${detail}; fix DATABASE_URL (a rotated password, a dropped database or grant) and the job goes on at its next retry`,
        err,
      );
    case 'rejected':
      return nonRetryable(ErrorType.DatabaseRejected, `the jobs database rejected the statement: ${detail}; retrying cannot help (a constraint, or a schema a migration has not reached: npm run migrate)`, err);
  }
}
