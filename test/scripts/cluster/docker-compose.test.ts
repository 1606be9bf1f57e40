import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TEMPORAL_SERVER_VERSION } from '../../../scripts/cluster/tools';

// No Docker engine runs here, so these check the compose file's wiring, the part that
// breaks silently: a renamed service, a floating tag, a volume nobody declared.

const root = resolve(__dirname, '..', '..', '..');

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  environment?: string[] | Record<string, string | number | boolean | null>;
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: (string | number | { target: number; published?: string | number })[];
  volumes?: (string | { type?: string; source?: string; target: string })[];
}

interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as Compose;
const services = compose.services;

/** The environment as a map, whichever of the two compose forms the file uses; a bare name (passed through) maps to null. */
function envOf(service: Service): Record<string, string | null> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((entry) => {
      const eq = entry.indexOf('=');
      return eq < 0 ? [entry, null] : [entry.slice(0, eq), entry.slice(eq + 1)];
    }));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? null : String(v)]));
}

function dependsOn(service: Service): string[] {
  const deps = service.depends_on ?? [];
  return Array.isArray(deps) ? deps : Object.keys(deps);
}

/** Published-to-container port pairs, e.g. "8233:8080". */
function portPairs(service: Service): string[] {
  return (service.ports ?? []).map((p) => {
    if (typeof p === 'object') return `${p.published ?? ''}:${p.target}`;
    const parts = String(p).split(':');
    return parts.slice(-2).join(':');
  });
}

/** Named volumes a service mounts (not bind mounts, not anonymous volumes). */
function namedVolumes(service: Service): string[] {
  return (service.volumes ?? []).flatMap((v) => {
    if (typeof v === 'object') return v.type === 'volume' && v.source ? [v.source] : [];
    const parts = v.split(':');
    if (parts.length < 2) return [];
    const source = parts[0];
    return /^[./~$]/.test(source) ? [] : [source];
  });
}

function imageTag(image: string): string | undefined {
  const name = image.split('@')[0];
  const lastSlash = name.lastIndexOf('/');
  const colon = name.indexOf(':', lastSlash + 1);
  return colon < 0 ? undefined : name.slice(colon + 1);
}

describe('docker-compose.yml', () => {
  const condition = (name: string, dep: string) => (services[name].depends_on as Record<string, { condition?: string }>)[dep]?.condition;

  it('defines the stack in the test bed\'s shape: database, schema job, server, namespace job, UI, worker', () => {
    expect(Object.keys(services).sort()).toEqual(['dex-worker', 'postgresql', 'temporal', 'temporal-namespace', 'temporal-schema', 'temporal-ui']);
  });

  it('pins every image to a version tag, the server to the test bed\'s version, off auto-setup', () => {
    const images = Object.values(services).flatMap((s) => (s.image ? [s.image] : []));
    expect(images).toHaveLength(5);
    for (const image of images) {
      const tag = imageTag(image);
      expect(tag, image).toMatch(/^\d/);
      expect(tag, image).not.toMatch(/latest/);
    }
    expect(images.some((i) => i.includes('auto-setup'))).toBe(false);
    expect(services.postgresql.image).toMatch(/^postgres:16(\.|$)/);
    expect(services.temporal.image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION.slice(1)}`);
    expect(services['temporal-schema'].image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION.slice(1)}`);
    expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:/);
  });

  it('takes every secret from the env file: no literal password or key, and .env.example names them', () => {
    const text = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    expect(text).not.toMatch(/PASSWORD:\s*[A-Za-z0-9]+\s*$/m);
    for (const service of ['postgresql', 'temporal', 'temporal-schema']) {
      const env = envOf(services[service]);
      const pw = env.POSTGRES_PASSWORD ?? env.SQL_PASSWORD;
      expect(pw, service).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    }
    const worker = envOf(services['dex-worker']);
    expect(worker.ANTHROPIC_API_KEY === null || /^\$\{ANTHROPIC_API_KEY(:?-)?\}$/.test(worker.ANTHROPIC_API_KEY)).toBe(true);
    expect(worker.DEX_CODEC_KEYS).toMatch(/^\$\{DEX_CODEC_KEYS:\?/);
    const example = readFileSync(join(root, '.env.example'), 'utf8');
    for (const name of ['POSTGRES_PASSWORD', 'ANTHROPIC_API_KEY', 'DEX_CODEC_KEYS', 'TEMPORAL_CODEC_ENDPOINT']) expect(example).toMatch(new RegExp(`^${name}=$`, 'm'));
    expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).toContain('.env');
  });

  it('publishes ports on 127.0.0.1 only', () => {
    const published = Object.values(services).flatMap((s) => s.ports ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const p of published) expect(String(p)).toMatch(/^127\.0\.0\.1:/);
    expect(portPairs(services.temporal)).toContain('7233:7233');
    expect(portPairs(services['temporal-ui'])).toContain('8233:8080');
  });

  it('gives postgresql, the server, the UI and the worker health checks, and orders start-up by them', () => {
    for (const name of ['postgresql', 'temporal', 'temporal-ui', 'dex-worker']) {
      expect((services[name] as Service & { healthcheck?: { test?: unknown } }).healthcheck?.test, name).toBeDefined();
    }
    expect(condition('temporal-schema', 'postgresql')).toBe('service_healthy');
    expect(condition('temporal', 'temporal-schema')).toBe('service_completed_successfully');
    expect(condition('temporal-namespace', 'temporal')).toBe('service_healthy');
    expect(condition('temporal-ui', 'temporal')).toBe('service_healthy');
    expect(condition('dex-worker', 'temporal-namespace')).toBe('service_completed_successfully');
    expect(existsSync(join(root, 'scripts', 'worker-health.ts'))).toBe(true);
    const pg = services.postgresql;
    expect(pg.volumes?.some((v) => typeof v === 'string' && v.endsWith(':/var/lib/postgresql/data'))).toBe(true);
  });

  it('sets up both schemas with the SQL tool, as the test bed does', () => {
    const command = JSON.stringify((services['temporal-schema'] as Service & { command?: unknown }).command);
    for (const step of ['create-database', 'setup-schema -v 0.0', 'update-schema -d', 'temporal_visibility', 'postgresql/v12']) expect(command).toContain(step);
    expect(envOf(services['temporal-schema']).SQL_PLUGIN).toBe('postgres12');
  });

  it("gives the worker the shared store: a database of its own on the stack's PostgreSQL, the password from the env file", () => {
    const command = JSON.stringify((services['temporal-schema'] as Service & { command?: unknown }).command);
    expect(command).toContain('--db dex create-database');
    const store = envOf(services['dex-worker']).DEX_STORE;
    expect(store).toMatch(/^postgres:\/\/\$\{POSTGRES_USER:-temporal\}:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgresql:5432\/dex$/);
    expect(condition('dex-worker', 'postgresql')).toBe('service_healthy');
  });

  it('runs the server from the config file the test bed uses, mounted read-only', () => {
    const temporal = services.temporal as Service & { entrypoint?: string[] };
    expect(temporal.volumes).toContain('./deploy/temporal:/etc/temporal/dex-config:ro');
    expect(existsSync(join(root, 'deploy', 'temporal', 'cluster.yaml'))).toBe(true);
    expect(temporal.entrypoint?.join(' ')).toMatch(/temporal-server .*--config \/etc\/temporal\/dex-config --env cluster .*start/);
    expect(envOf(temporal).POSTGRES_HOST).toBe('postgresql');
    expect(envOf(temporal).TEMPORAL_DYNAMIC_CONFIG).toBe('/etc/temporal/dex-config/dynamicconfig.yaml');
  });

  it('points the Web UI at temporal:7233 and notes the codec endpoint', () => {
    const env = envOf(services['temporal-ui']);
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect('TEMPORAL_CODEC_ENDPOINT' in env).toBe(true);
  });

  it('builds dex-worker from this folder, registers dex\'s search attributes, and wires its volumes', () => {
    const worker = services['dex-worker'] as Service & { command?: string[] };
    const context = typeof worker.build === 'string' ? worker.build : worker.build?.context;
    expect(context).toBe('.');
    const env = envOf(worker);
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(env.DEX_HOME).toBe('/data/dex');
    expect(worker.command?.join(' ')).toMatch(/setup-namespace && exec node bin\/dex\.js worker/);
    const targets = (worker.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':')[1] : v.target));
    expect(targets).toContain('/data/dex');
    expect(namedVolumes(worker)).toHaveLength(2);
  });

  it('names a Dockerfile that exists and runs the dex worker as a non-root user', () => {
    const build = services['dex-worker'].build;
    const dockerfile = (typeof build === 'object' && build.dockerfile) || 'Dockerfile';
    const path = join(root, typeof build === 'object' ? build.context ?? '.' : build ?? '.', dockerfile);
    expect(existsSync(path)).toBe(true);
    const text = readFileSync(path, 'utf8');
    const instructions = text.split('\n').filter((l) => /^[A-Z]+\s/.test(l));
    const last = (kind: string) => instructions.filter((l) => l.startsWith(kind + ' ')).at(-1);
    const run = [last('ENTRYPOINT'), last('CMD')].filter(Boolean).join(' ');
    expect(run).toMatch(/bin\/dex\.js/);
    expect(run).toMatch(/\bworker\b/);
    expect(instructions.some((l) => l.startsWith('FROM node:20-bookworm-slim'))).toBe(true);
    expect(text).toMatch(/\bpython3\b/);
    expect(text).toMatch(/\bg\+\+/);
    expect(text).toMatch(/\bnpm ci\b/);
    const user = last('USER');
    expect(user).toBeDefined();
    expect(user).not.toMatch(/\broot\b|\b0\b/);
    expect(existsSync(join(root, '.dockerignore'))).toBe(true);
    expect(readFileSync(join(root, '.dockerignore'), 'utf8').split('\n')).toEqual(expect.arrayContaining(['node_modules', '.git']));
  });

  it('depends only on services it defines', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const dep of dependsOn(service)) expect(Object.keys(services), `${name} depends on ${dep}`).toContain(dep);
    }
  });

  it('declares every named volume it mounts', () => {
    const declared = Object.keys(compose.volumes ?? {});
    const used = Object.values(services).flatMap(namedVolumes);
    expect(used.length).toBeGreaterThan(0);
    for (const volume of used) expect(declared, volume).toContain(volume);
  });
});
