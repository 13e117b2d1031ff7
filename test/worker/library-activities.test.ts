import assert from 'node:assert/strict';
import { ConfigError } from '../../src/shared/errors';
import { refuseLibraryActivityNames } from '../../src/worker/create-worker';

describe("a team's activities beside the library's", () => {
  it('refuses an activity named like one of the library\'s, naming it, instead of one silently replacing the other', () => {
    assert.throws(
      () => refuseLibraryActivityNames({ chargeCard: async () => {}, restartJob: async () => {}, handOffToDeadLetter: async () => {} }),
      (err: unknown) =>
        err instanceof ConfigError &&
        /activities\.restartJob: is the name of one of durable-jobs' own activities/.test(err.message) &&
        /activities\.handOffToDeadLetter/.test(err.message) &&
        !/chargeCard/.test(err.message),
    );
  });

  it('accepts activities of other names', () => {
    refuseLibraryActivityNames({ chargeCard: async () => {}, refundCharge: async () => {} });
  });
});
