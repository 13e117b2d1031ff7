#!/usr/bin/env node
require('../dist/client/cli.js')
  .main(process.argv)
  .then((code) => process.exit(code));
