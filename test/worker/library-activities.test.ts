import assert from 'node:assert/strict';
import { ConfigError } from '../../src/shared/errors';
import { refuseLibraryActivityNames } from '../../src/worker/library-parts';
import { bareActivityType, isLibraryActivity, registeredUnderBothNames } from '../../src/shared/library-activities';
import { jobProtocolOf } from '../../src/shared/job-protocol';

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

  it("refuses any activity in the library's namespace (durable-jobs.*), which its workflows call", () => {
    assert.throws(
      () => refuseLibraryActivityNames({ 'durable-jobs.sendInvoice': async () => {} }),
      (err: unknown) => err instanceof ConfigError && /activities\.durable-jobs\.sendInvoice: is in durable-jobs' own namespace/.test(err.message),
    );
  });

  it('registers each library activity under its namespaced name and its bare alias, the same function', () => {
    const restartJob = async () => {};
    const both = registeredUnderBothNames({ restartJob });
    assert.deepEqual(Object.keys(both).sort(), ['durable-jobs.restartJob', 'restartJob']);
    assert.equal(both['durable-jobs.restartJob'], restartJob);
    assert.ok(isLibraryActivity('durable-jobs.restartJob') && isLibraryActivity('restartJob') && !isLibraryActivity('chargeCard'));
    assert.equal(bareActivityType('durable-jobs.releaseConcurrencySlot'), 'releaseConcurrencySlot');
  });

  it('reads the protocol a workflow started under from its memo: none (an earlier release) is 1', () => {
    assert.equal(jobProtocolOf(undefined), 1);
    assert.equal(jobProtocolOf({ payloadHash: 'x' }), 1);
    assert.equal(jobProtocolOf({ jobProtocol: 2 }), 2);
    assert.equal(jobProtocolOf({ jobProtocol: 'two' }), 1, 'a memo it cannot read is the earliest protocol');
  });
});
