import { ErrorType, JobsError, formatIssues, type FieldIssue } from '../shared/errors';

/** A catalog of job types is malformed; the message names the job type and field of each problem. */
export class CatalogError extends JobsError {
  constructor(readonly issues: FieldIssue[]) {
    super(ErrorType.InvalidCatalog, `invalid catalog: ${formatIssues(issues)}`);
  }
}

/** An operation needs the catalog of job types (to validate a payload), and the client has none. */
export class NoCatalogError extends JobsError {
  constructor(operation: string) {
    super(
      ErrorType.NoCatalog,
      `${operation} needs the catalog of job types: pass { catalog } to JobClient.connect, or to jobctl --catalog <module> (or DURABLE_JOBS_CATALOG, or "durable-jobs": { "catalog": … } in package.json)`,
    );
  }
}
