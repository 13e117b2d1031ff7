// Loaded by path (`failureConverterPath`) so that workflow code, bundled apart from the worker,
// converts failures the same way the worker and the client do.
import { DefaultFailureConverter } from '@temporalio/common';

/** Moves failure messages and stack traces, which can quote a payload, into an encoded (so encrypted) attribute. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
