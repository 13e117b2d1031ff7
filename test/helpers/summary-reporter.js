// Mocha's spec reporter, plus a closing line in the plain form CI reads: "mocha: N passed, N failed, N skipped".
const { reporters, Runner } = require('mocha');

class SummaryReporter extends reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      // Loaded through tsx's require hook, so the TypeScript helper can be read here.
      const { postgresSkip } = require('./db.ts');
      if (postgresSkip.reason) process.stdout.write(`Postgres leg skipped: ${postgresSkip.reason}\n`);
      process.stdout.write(`mocha: ${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
