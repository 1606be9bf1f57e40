import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// No Docker engine runs here, so these check the compose file's wiring, the part that
// breaks silently: a renamed service, a floating tag, a volume nobody declared.

const root = resolve(__dirname, '..');

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
  it('defines the four services', () => {
    expect(Object.keys(services).sort()).toEqual(['dex-worker', 'postgresql', 'temporal', 'temporal-ui']);
  });

  it('pins every image to a version tag', () => {
    const images = Object.values(services).flatMap((s) => (s.image ? [s.image] : []));
    expect(images).toHaveLength(3);
    for (const image of images) {
      const tag = imageTag(image);
      expect(tag, image).toMatch(/^\d/);
      expect(tag, image).not.toMatch(/latest/);
    }
    expect(services.postgresql.image).toMatch(/^postgres:16(\.|$)/);
    expect(services.temporal.image).toMatch(/^temporalio\/auto-setup:/);
    expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:/);
  });

  it('gives postgresql a healthcheck and keeps its data in a volume', () => {
    const pg = services.postgresql as Service & { healthcheck?: { test?: unknown } };
    expect(JSON.stringify(pg.healthcheck?.test)).toMatch(/pg_isready/);
    expect(pg.volumes?.some((v) => typeof v === 'string' && v.endsWith(':/var/lib/postgresql/data'))).toBe(true);
    expect(namedVolumes(pg)).toHaveLength(1);
  });

  it('points temporal at the postgresql service and waits for it to be healthy', () => {
    const temporal = services.temporal;
    const env = envOf(temporal);
    expect(env.DB).toBe('postgres12');
    expect(env.POSTGRES_SEEDS).toBe('postgresql');
    expect(env.POSTGRES_USER).toBe(envOf(services.postgresql).POSTGRES_USER);
    expect(env.POSTGRES_PWD).toBe(envOf(services.postgresql).POSTGRES_PASSWORD);
    expect(dependsOn(temporal)).toContain('postgresql');
    expect((temporal.depends_on as Record<string, { condition?: string }>).postgresql.condition).toBe('service_healthy');
    expect(portPairs(temporal)).toContain('7233:7233');
  });

  it('points the Web UI at temporal:7233 and publishes it on 8233', () => {
    const ui = services['temporal-ui'];
    expect(envOf(ui).TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(portPairs(ui)).toContain('8233:8080');
    expect(dependsOn(ui)).toContain('temporal');
  });

  it('builds dex-worker from this folder and wires it to temporal, the key and its volumes', () => {
    const worker = services['dex-worker'];
    const context = typeof worker.build === 'string' ? worker.build : worker.build?.context;
    expect(context).toBe('.');
    const env = envOf(worker);
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(env.DEX_HOME).toBe('/data/dex');
    // Passed through: a bare name, or an interpolation of the host variable; never a literal key.
    expect('ANTHROPIC_API_KEY' in env).toBe(true);
    expect(env.ANTHROPIC_API_KEY === null || /^\$\{ANTHROPIC_API_KEY(:?-)?\}$/.test(env.ANTHROPIC_API_KEY)).toBe(true);
    expect(dependsOn(worker)).toContain('temporal');
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
