import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/env';

// No Docker engine runs here, so this checks the file's structure: services, ports, dependencies,
// and that everything it references exists in the repo.
interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  command?: string | string[];
  profiles?: string[];
}

const compose = parse(readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;

describe('docker-compose.yml', () => {
  it('has PostgreSQL, schema setup, the Temporal server, namespace creation, the UI, the codec server and the worker', () => {
    assert.deepEqual(Object.keys(services).sort(), ['codec-server', 'postgresql', 'temporal', 'temporal-admin-tools', 'temporal-create-namespace', 'temporal-ui', 'worker']);
    assert.match(services.postgresql!.image!, /^postgres:/);
    assert.match(services.temporal!.image!, /^temporalio\/server:/);
    assert.match(services['temporal-ui']!.image!, /^temporalio\/ui:/);
    assert.equal(services.temporal!.environment!.DB, 'postgres12');
  });

  it('publishes gRPC on 7233 and the UI on 8080', () => {
    assert.deepEqual(services.temporal!.ports, ['7233:7233']);
    assert.deepEqual(services['temporal-ui']!.ports, ['8080:8080']);
  });

  it('starts things in order: database healthy → schema set up → server healthy → namespace → worker', () => {
    assert.equal(services['temporal-admin-tools']!.depends_on!.postgresql!.condition, 'service_healthy');
    assert.equal(services.temporal!.depends_on!['temporal-admin-tools']!.condition, 'service_completed_successfully');
    assert.equal(services['temporal-create-namespace']!.depends_on!.temporal!.condition, 'service_healthy');
    assert.equal(services.worker!.depends_on!['temporal-create-namespace']!.condition, 'service_completed_successfully');
  });

  it('points the worker and the UI at the Temporal service', () => {
    assert.equal(services.worker!.environment!.TEMPORAL_ADDRESS, 'temporal:7233');
    assert.equal(services['temporal-ui']!.environment!.TEMPORAL_ADDRESS, 'temporal:7233');
  });

  it('gives the worker and the codec server the same keys, and the UI a codec endpoint, with encryption opt-in', () => {
    assert.equal(services.worker!.environment!.ENCRYPTION_KEYS, '${ENCRYPTION_KEYS:-}');
    assert.equal(services['codec-server']!.environment!.ENCRYPTION_KEYS, '${ENCRYPTION_KEYS:-}');
    assert.equal(services['temporal-ui']!.environment!.TEMPORAL_CODEC_ENDPOINT, '${TEMPORAL_CODEC_ENDPOINT:-}');
    assert.deepEqual(services['codec-server']!.profiles, ['encryption']);
    assert.match(services['codec-server']!.environment!.CODEC_SERVER_ORIGINS!, /http:\/\/localhost:8080/);
    assert.deepEqual(services['codec-server']!.command, ['node', 'bin/jobctl.js', 'codec-server', '--host', '0.0.0.0']);
    assert.deepEqual(services['codec-server']!.ports, ['127.0.0.1:8234:8234'], 'published on the host loopback only');
  });

  it('references only files that exist, and named volumes it declares', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.')) assert.ok(existsSync(path.join(repoRoot, source)), `${name}: ${source} exists`);
        else if (!source.startsWith('/')) assert.ok(source in compose.volumes, `${name}: volume ${source} is declared`);
      }
      if (typeof service.command === 'string' && service.command.startsWith('/scripts/')) {
        const script = path.join(repoRoot, 'deploy/temporal/scripts', path.basename(service.command as string));
        assert.ok(statSync(script).mode & 0o111, `${name}: ${script} is executable`);
      }
    }
    const worker = services.worker!.build!;
    const dockerfile = path.join(repoRoot, worker.context, worker.dockerfile);
    assert.ok(existsSync(dockerfile));
    const text = readFileSync(dockerfile, 'utf8');
    for (const copied of text.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const source of copied[1]!.split(/\s+/)) assert.ok(existsSync(path.join(repoRoot, source)), `Dockerfile copies ${source}`);
    }
    const cmd = /^CMD \["node", "dist\/(.+)\.js"\]/m.exec(text);
    assert.ok(cmd && existsSync(path.join(repoRoot, 'src', `${cmd[1]}.ts`)), 'the CMD runs a compiled entry point of src/');
  });
});
