#!/usr/bin/env node
require('../dist/client/cli.js');
