#!/usr/bin/env node
// Exit only once stdout and stderr have drained: a pipe takes large output (a job record with a
// 100 KB payload) in pieces, and exiting at once would cut it short.
require('../dist/jobctl/cli.js')
  .main(process.argv)
  .then((code) => {
    process.exitCode = code;
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  });
