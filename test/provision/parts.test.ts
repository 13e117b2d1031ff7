import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseParts, provisionPartNames, UnknownPartError } from '../../src/provision/parts';
import { repoRoot } from '../helpers/env';

describe('npm run provision [PART...]', () => {
  it('provisions every part when none is named, and only the named ones in a fixed order otherwise', () => {
    assert.deepEqual(parseParts([]), [...provisionPartNames]);
    assert.deepEqual(parseParts(['jaeger', 'cli']), ['cli', 'jaeger']);
    assert.deepEqual(parseParts(['server', 'server']), ['server']);
  });

  it('refuses an unknown part by name, listing the parts, with exit 2 and nothing provisioned', async () => {
    assert.throws(() => parseParts(['cli', 'temporal']), (err: unknown) => err instanceof UnknownPartError && /unknown part 'temporal'.*cli, test-server, server, ui, jaeger/.test(err.message));
    const run = promisify(execFile)(process.execPath, [path.join(repoRoot, 'dist/provision/main.js'), 'clli'], { env: { ...process.env, DURABLE_JOBS_CACHE_DIR: '/nonexistent/durable-jobs' } });
    await assert.rejects(run, (err: { code?: number; stderr?: string }) => err.code === 2 && /unknown part 'clli'/.test(err.stderr ?? ''));
  });
});
