import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { versions } from '../../src/provision/versions';
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
  command?: string;
}

const compose = parse(readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;

describe('docker-compose.yml', () => {
  it('has PostgreSQL, schema setup, the Temporal server, namespace creation, the UI and the worker', () => {
    assert.deepEqual(Object.keys(services).sort(), ['postgresql', 'temporal', 'temporal-admin-tools', 'temporal-create-namespace', 'temporal-ui', 'worker']);
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

  it('references only files that exist, and named volumes it declares', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.')) assert.ok(existsSync(path.join(repoRoot, source)), `${name}: ${source} exists`);
        else if (!source.startsWith('/')) assert.ok(source in compose.volumes, `${name}: volume ${source} is declared`);
      }
      if (service.command?.startsWith('/scripts/')) {
        const script = path.join(repoRoot, 'deploy/temporal/scripts', path.basename(service.command));
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

  it('runs the server on the config template, dynamic config and scripts that npm run cluster boots natively', () => {
    const temporal = services.temporal!;
    assert.ok(temporal.volumes!.includes('./deploy/temporal/config/docker.yaml:/etc/temporal/config/docker.yaml:ro'));
    assert.ok(temporal.volumes!.includes('./deploy/temporal/dynamicconfig:/etc/temporal/config/dynamicconfig:ro'));
    assert.match(temporal.command!, /--config config --env docker/);
    assert.match(readFileSync(path.join(repoRoot, 'deploy/temporal/config/docker.yaml'), 'utf8').slice(0, 1024), /enable-template/);
    assert.equal(services['temporal-admin-tools']!.command, '/scripts/setup-postgres.sh');
  });

  it('pins the same server and UI versions as src/provision/versions.ts', () => {
    assert.match(services.temporal!.image!, new RegExp(`:-${versions.temporalServer.replace(/\./g, '\\.')}}$`));
    assert.match(services['temporal-admin-tools']!.image!, new RegExp(`:-${versions.temporalServer.replace(/\./g, '\\.')}}$`));
    assert.match(services['temporal-ui']!.image!, new RegExp(`:-${versions.temporalUi.replace(/\./g, '\\.')}}$`));
  });
});
