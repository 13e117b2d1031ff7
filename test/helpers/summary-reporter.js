// Mocha's spec reporter, plus a closing line in the plain form CI reads: "mocha: N passed, N failed, N skipped".
// With TEST_TIMES_FILE set, it also writes each test file's wall time (its hooks included) there as
// JSON, `{ "test/x.test.ts": ms }`, and each failure's title, file and error: the lane runner
// (test/lanes/run.ts) reports the slowest files from it and repeats the failures at the end of its output.
const { writeFileSync } = require('node:fs');
const path = require('node:path');
const { reporters, Runner } = require('mocha');

class SummaryReporter extends reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const times = {};
    const failed = [];
    runner.on(Runner.constants.EVENT_TEST_FAIL, (test, err) => {
      const file = test.file ?? test.parent?.file;
      const error = String(err?.stack ?? err?.message ?? err).split('\n').slice(0, 12).join('\n');
      failed.push({ title: test.fullTitle(), file: file ? path.relative(process.cwd(), file) : undefined, error });
    });
    runner.on(Runner.constants.EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) started.set(suite, Date.now());
    });
    runner.on(Runner.constants.EVENT_SUITE_END, (suite) => {
      const at = started.get(suite);
      if (at === undefined) return;
      const file = path.relative(process.cwd(), suite.file);
      times[file] = (times[file] ?? 0) + (Date.now() - at);
    });
    runner.once(Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      // Loaded through tsx's require hook, so the TypeScript helper can be read here.
      const { postgresSkip } = require('./db.ts');
      if (postgresSkip.reason) process.stdout.write(`Postgres leg skipped: ${postgresSkip.reason}\n`);
      if (process.env.TEST_TIMES_FILE) writeFileSync(process.env.TEST_TIMES_FILE, JSON.stringify({ passes, failures, pending, files: times, failed }));
      process.stdout.write(`mocha: ${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
