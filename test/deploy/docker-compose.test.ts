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
  depends_on?: Record<string, { condition: string }> | string[];
  command?: string | string[];
  profiles?: string[];
  expose?: string[];
}

const compose = parse(readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;

describe('docker-compose.yml', () => {
  it('has PostgreSQL, schema setup, the Temporal server, namespace creation, the UI, the codec server, the worker, Prometheus and Grafana', () => {
    assert.deepEqual(Object.keys(services).sort(), ['codec-server', 'grafana', 'postgresql', 'prometheus', 'temporal', 'temporal-admin-tools', 'temporal-create-namespace', 'temporal-ui', 'worker']);
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
    const condition = (service: string, on: string) => (services[service]!.depends_on as Record<string, { condition: string }>)[on]!.condition;
    assert.equal(condition('temporal-admin-tools', 'postgresql'), 'service_healthy');
    assert.equal(condition('temporal', 'temporal-admin-tools'), 'service_completed_successfully');
    assert.equal(condition('temporal-create-namespace', 'temporal'), 'service_healthy');
    assert.equal(condition('worker', 'temporal-create-namespace'), 'service_completed_successfully');
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

  it('runs Prometheus scraping the worker\'s metrics port, and Grafana with the Prometheus data source and the dashboard provisioned', () => {
    const port = services.worker!.environment!.METRICS_PORT;
    assert.equal(port, '9464');
    assert.deepEqual(services.worker!.expose, [port]);
    assert.deepEqual(services.prometheus!.ports, ['9090:9090']);
    assert.deepEqual(services.grafana!.ports, ['3000:3000']);

    const mounted = (service: string, target: string) => {
      const volume = services[service]!.volumes!.find((v) => v.split(':')[1] === target);
      assert.ok(volume, `${service} mounts ${target}`);
      return path.join(repoRoot, volume.split(':')[0]!);
    };
    const prometheus = parse(readFileSync(mounted('prometheus', '/etc/prometheus/prometheus.yml'), 'utf8')) as { scrape_configs: { dns_sd_configs: { names: string[]; port: number }[] }[] };
    assert.deepEqual(prometheus.scrape_configs[0]!.dns_sd_configs[0], { names: ['worker'], type: 'A', port: Number(port) });

    const provisioning = mounted('grafana', '/etc/grafana/provisioning');
    const datasources = parse(readFileSync(path.join(provisioning, 'datasources/prometheus.yml'), 'utf8')) as { datasources: { uid: string; url: string }[] };
    assert.deepEqual(datasources.datasources.map((d) => [d.uid, d.url]), [['prometheus', 'http://prometheus:9090']]);
    const providers = parse(readFileSync(path.join(provisioning, 'dashboards/durable-jobs.yml'), 'utf8')) as { providers: { options: { path: string } }[] };
    const dashboards = providers.providers[0]!.options.path;
    assert.equal(dashboards, '/etc/grafana/dashboards');
    const dashboard = JSON.parse(readFileSync(path.join(mounted('grafana', dashboards), 'durable-jobs.json'), 'utf8')) as { panels: { datasource: { uid: string } }[] };
    assert.ok(dashboard.panels.length > 0);
    for (const panel of dashboard.panels) assert.equal(panel.datasource.uid, 'prometheus', 'every panel reads the provisioned data source');
  });

  it('runs the server on the config template, dynamic config and scripts that npm run cluster boots natively', () => {
    const temporal = services.temporal!;
    assert.ok(temporal.volumes!.includes('./deploy/temporal/config/docker.yaml:/etc/temporal/config/docker.yaml:ro'));
    assert.ok(temporal.volumes!.includes('./deploy/temporal/dynamicconfig:/etc/temporal/config/dynamicconfig:ro'));
    // The same flags as src/cluster/server-node.ts: one config file (server 1.30+), not the deprecated --root/--config/--env.
    assert.match(String(temporal.command), /^--config-file \/etc\/temporal\/config\/docker\.yaml --allow-no-auth start$/);
    assert.match(readFileSync(path.join(repoRoot, 'deploy/temporal/config/docker.yaml'), 'utf8').slice(0, 1024), /enable-template/);
    assert.equal(services['temporal-admin-tools']!.command, '/scripts/setup-postgres.sh');
  });

  it('turns on the new matcher (priorities) and fairness in the dynamic config it shares with npm run cluster', () => {
    const dynamicConfig = parse(readFileSync(path.join(repoRoot, 'deploy/temporal/dynamicconfig/development-sql.yaml'), 'utf8')) as Record<string, { value: unknown; constraints: object }[]>;
    assert.deepEqual(dynamicConfig['matching.useNewMatcher'], [{ value: true, constraints: {} }]);
    assert.deepEqual(dynamicConfig['matching.enableFairness'], [{ value: true, constraints: {} }]);
  });

  it('pins the same server and UI versions as src/provision/versions.ts', () => {
    assert.match(services.temporal!.image!, new RegExp(`:-${versions.temporalServer.replace(/\./g, '\\.')}}$`));
    assert.match(services['temporal-admin-tools']!.image!, new RegExp(`:-${versions.temporalServer.replace(/\./g, '\\.')}}$`));
    assert.match(services['temporal-ui']!.image!, new RegExp(`:-${versions.temporalUi.replace(/\./g, '\\.')}}$`));
  });
});
