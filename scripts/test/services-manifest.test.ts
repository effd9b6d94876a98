/**
 * deploy/services.json, the one list of components and ports (docs/architecture.md §4): the file is
 * valid against its JSON Schema and the reader in @tradewind/lib; what reads it really gets its ports
 * (the services' config defaults, the Tiltfile evaluated with Python, the docs table); and every copy
 * that cannot read it — the chart's values.yaml (Helm cannot read files outside the chart),
 * deploy/routes.json (its own file, read by the ingress proxy and the chart), and defaults in files
 * outside this change (web/server, web/vite.config.ts, dev/src/ingress-proxy.ts, dev/bin/local-oidc.ts,
 * the local Prometheus targets, the chart's in-cluster NATS address) — holds the same number.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { defaultPort, findServicesManifest, readServicesManifest, type ServicesManifest } from '@tradewind/lib';
import { PORTS_BEGIN, PORTS_END, renderPortsTable, withPortsTable } from '../docs-ports.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MANIFEST_FILE = join(ROOT, 'deploy/services.json');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const manifest = readServicesManifest(MANIFEST_FILE);
const raw = JSON.parse(read('deploy/services.json')) as unknown;
const schema = JSON.parse(read('deploy/services.schema.json')) as object;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
/** The components with an image and a chart component (kind service or web). */
const IMAGES = Object.entries(manifest.components)
  .filter(([, c]) => c.kind === 'service' || c.kind === 'web')
  .map(([name]) => name);
const port = (component: string, role: string) => defaultPort(component, role, manifest);
/** kebab-case component → the chart's camelCase values key (docs/style.md §2). */
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const clone = <T>(value: T): T => structuredClone(value);

describe('deploy/services.json', () => {
  it('when checked against deploy/services.schema.json and by the @tradewind/lib reader, then both accept it', () => {
    expect(validate(raw), JSON.stringify(validate.errors)).toBe(true);
    expect(findServicesManifest(join(ROOT, 'services/lib/src'))).toBe(MANIFEST_FILE);
    expect(Object.keys(manifest.components)).toEqual(
      expect.arrayContaining([
        'auth',
        'billing',
        'credential-issuer',
        'token-price',
        'ingest',
        'ws-fanout',
        'web',
        'nats',
        'redis',
        'postgres',
        'local-oidc',
        'local-stripe',
        'local-geyser',
        'ingress',
      ]),
    );
  });

  it.each([
    [
      'a port out of range',
      (m: any) => {
        m.components.auth.ports.http.port = 70000;
      },
    ],
    [
      'a service without its main',
      (m: any) => {
        delete m.components.billing.main;
      },
    ],
    [
      'an unknown field',
      (m: any) => {
        m.components.ingest.prot = {};
      },
    ],
    [
      'a lower-case variable name',
      (m: any) => {
        m.components.auth.ports.grpc.env = 'grpc_port';
      },
    ],
    [
      "a description that would break the image label's quoting",
      (m: any) => {
        m.components.auth.description = 'say "hi"';
      },
    ],
    [
      'a role too long for a Kubernetes port name',
      (m: any) => {
        m.components.web.ports['administration-port'] = { port: 1, description: 'x' };
      },
    ],
  ])('when it has %s, then the schema refuses it', (_what, breakIt) => {
    const broken = clone(raw);
    breakIt(broken);
    expect(validate(broken)).toBe(false);
  });

  it('when two components claim the same local port, then this test finds it (every port is unique)', () => {
    const all = Object.entries(manifest.components).flatMap(([name, c]) => Object.entries(c.ports).map(([role, p]) => [`${name}.${role}`, p.port] as const));
    const seen = new Map<number, string>();
    for (const [where, p] of all) {
      expect(seen.get(p), `${where} and ${seen.get(p)} both use ${p}`).toBeUndefined();
      seen.set(p, where);
    }
    expect(all.length).toBeGreaterThanOrEqual(20);
  });

  it('when a component or role is asked for that the manifest lacks, then defaultPort says which', () => {
    expect(port('auth', 'grpc')).toBe(manifest.components.auth!.ports.grpc!.port);
    expect(() => port('auht', 'http')).toThrow(/no component "auht"/);
    expect(() => port('ingest', 'http')).toThrow(/component "ingest" has no port "http" \(has admin\)/);
    const other: ServicesManifest = clone(manifest);
    other.components.auth!.ports.http!.port = 18081;
    expect(defaultPort('auth', 'http', other)).toBe(18081);
  });

  it('when the reader is given a broken file, then it names the file and the problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'services-manifest-'));
    try {
      const file = join(dir, 'services.json');
      const broken = clone(raw) as any;
      broken.components.auth.ports.http.port = 'eighty';
      writeFileSync(file, JSON.stringify(broken));
      expect(() => readServicesManifest(file)).toThrow(/services\.json: not a services manifest:\n {2}- components\.auth\.ports\.http\.port/);
      writeFileSync(file, '{');
      expect(() => readServicesManifest(file)).toThrow(/not readable JSON/);
      expect(() => findServicesManifest(dir)).toThrow(/deploy\/services\.json not found/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the services read their port defaults from the manifest', () => {
  const configs: Record<string, string> = {
    auth: 'AuthConfigSchema',
    billing: 'BillingConfigSchema',
    'credential-issuer': 'CredentialIssuerConfigSchema',
    'token-price': 'TokenPriceConfigSchema',
    ingest: 'IngestConfigSchema',
    'ws-fanout': 'WsFanoutConfigSchema',
  };

  it('when a service is added, then its config schema is checked here', () => {
    expect(Object.keys(configs).sort()).toEqual(IMAGES.filter((n) => manifest.components[n]!.kind === 'service').sort());
  });

  it.each(Object.entries(configs))("when %s starts without port variables, then each of its ports defaults to the manifest's", async (name, exportName) => {
    const mod = (await import(join(ROOT, `services/${name}/src/config.ts`))) as Record<string, { shape: Record<string, { parse(v: unknown): unknown }> }>;
    const shape = mod[exportName]!.shape;
    for (const [role, p] of Object.entries(manifest.components[name]!.ports)) {
      expect(p.env, `${name}.${role} names its variable`).toBeDefined();
      expect(shape[p.env!]!.parse(undefined), `${name} ${p.env}`).toBe(p.port);
    }
    expect(shape.NATS_URL!.parse(undefined)).toBe(`nats://127.0.0.1:${port('nats', 'nats')}`);
    if (name === 'billing') {
      expect(shape.AUTH_ADDR!.parse(undefined)).toBe(`127.0.0.1:${port('auth', 'grpc')}`);
    }
  });

  it.each([
    ['web/server/main.ts', /\bPORT: Port\.default\(defaultPort\('web', 'http'\)\)/],
    ['web/server/main.ts', /ADMIN_PORT: Port\.default\(defaultPort\('web', 'admin'\)\)/],
    ['dev/src/ingress-proxy.ts', /process\.env\.INGRESS_PORT \?\? defaultPort\('ingress', 'http'\)/],
    ['dev/bin/local-oidc.ts', /process\.env\.LOCAL_OIDC_PORT \?\? String\(defaultPort\('local-oidc', 'http'\)\)/],
    ['dev/bin/local-geyser.ts', /read\('LOCAL_GEYSER_PORT', defaultPort\('local-geyser', 'grpc'\)/],
  ])('when %s needs a default port, then it reads the manifest (%s)', (file, pattern) => {
    expect(read(file), `${file}: ${pattern} not found`).toMatch(pattern);
  });

  it("when web/vite.config.ts names the dev server's port, then it equals the manifest's", () => {
    const match = /port: (\d+),/.exec(read('web/vite.config.ts'));
    expect(match, 'web/vite.config.ts: port not found').not.toBeNull();
    expect(Number(match![1])).toBe(port('web', 'http'));
  });
});

describe("copies of the manifest's ports", () => {
  it("when deploy/routes.json names a service, then its port is that component's http port", () => {
    const routes = JSON.parse(read('deploy/routes.json')) as { services: Record<string, { port: number }> };
    expect(Object.keys(routes.services).length).toBeGreaterThan(0);
    for (const [name, { port: p }] of Object.entries(routes.services)) expect(p, `routes.json services.${name}.port`).toBe(port(name, 'http'));
  });

  it("when the chart's values.yaml gives a component's ports, then they are exactly the manifest's (role → port)", () => {
    const values = parseYaml(read('charts/tradewind/values.yaml')) as {
      components: Record<string, { ports: Record<string, number> }>;
      development: { localOidcPort: number; localStripePort: number };
    };
    for (const name of IMAGES) {
      const expected = Object.fromEntries(Object.entries(manifest.components[name]!.ports).map(([role, p]) => [role, p.port]));
      expect(values.components[camel(name)]?.ports, `components.${camel(name)}.ports`).toEqual(expected);
    }
    expect(values.development.localOidcPort).toBe(port('local-oidc', 'http'));
    expect(values.development.localStripePort).toBe(port('local-stripe', 'http'));
  });

  it.each(['values.yaml', 'values-dev.yaml'])(
    "when %s gives the public URLs of a local cluster, then their ports are npm start's (Tilt forwards them)",
    (file) => {
      const values = parseYaml(read(`charts/tradewind/${file}`)) as { publicUrl: string; natsPublicUrl: string };
      expect(new URL(values.publicUrl).port).toBe(String(port('ingress', 'http')));
      expect(new URL(values.natsPublicUrl).port).toBe(String(port('nats', 'nats')));
    },
  );

  it('when the local Prometheus scrapes a component (deploy/prometheus/prometheus.local.yml), then the target is its admin port', () => {
    const config = parseYaml(read('deploy/prometheus/prometheus.local.yml')) as {
      scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
    };
    const jobs = Object.fromEntries(config.scrape_configs.map((j) => [j.job_name, j.static_configs.flatMap((c) => c.targets)]));
    for (const name of IMAGES) expect(jobs[name], `job ${name}`).toEqual([`127.0.0.1:${port(name, 'admin')}`]);
  });

  it('when the chart points the services at the bundled NATS, then it uses the in-cluster NATS port of the manifest', () => {
    expect(read('charts/tradewind/templates/_helpers.tpl')).toContain(`"nats://%s.%s.svc:${manifest.components.nats!.ports.nats!.kubernetes}"`);
  });
});

describe('the Tiltfile, evaluated', () => {
  // Starlark is a Python dialect: the Tiltfile runs under python3 with Tilt's builtins recorded.
  const harness = `
import json, os, sys
calls = []
def record(kind):
    def f(*args, **kwargs):
        calls.append({'kind': kind, 'args': list(args), 'kwargs': kwargs})
        return kind
    return f
builtins = {name: record(name) for name in ['docker_build', 'k8s_resource', 'local_resource', 'k8s_yaml', 'helm', 'local', 'update_settings', 'fall_back_on', 'sync', 'run']}
builtins['link'] = lambda url, name=None: {'url': url, 'name': name}
builtins['probe'] = lambda **k: k
builtins['tcp_socket_action'] = lambda **k: k
builtins['read_json'] = lambda path: json.load(open(path))
builtins['os'] = os
exec(compile(open('Tiltfile').read(), 'Tiltfile', 'exec'), builtins)
print(json.dumps([c for c in calls if c['kind'] in ('docker_build', 'k8s_resource', 'local_resource')], default=str))
`;
  const run = spawnSync('python3', ['-c', harness], { cwd: ROOT, encoding: 'utf8' });
  type Call = { kind: string; args: unknown[]; kwargs: Record<string, any> };
  const calls = (run.status === 0 ? JSON.parse(run.stdout) : []) as Call[];
  const resource = (name: string) => calls.find((c) => c.kind === 'k8s_resource' && c.kwargs.new_name === name);

  it("when run with Tilt's builtins recorded, then it completes", () => {
    expect(run.status, run.stderr).toBe(0);
    expect(calls.length).toBeGreaterThan(10);
  });

  it("when it builds an image, then it is the root Dockerfile's dev target with the component's build arguments from the manifest", () => {
    // Besides the components: the development stand-ins (@tradewind/dev), never a production image.
    const builds = calls.filter((c) => c.kind === 'docker_build' && c.args[0] !== 'tradewind/stand-ins');
    expect(calls.filter((c) => c.kind === 'docker_build' && c.args[0] === 'tradewind/stand-ins').map((c) => c.kwargs.target)).toEqual(['stand-ins']);
    expect(builds.map((b) => b.args[0]).sort()).toEqual(IMAGES.map((n) => `tradewind/${n}`).sort());
    for (const b of builds) {
      const name = (b.args[0] as string).slice('tradewind/'.length);
      const c = manifest.components[name]!;
      expect(b.kwargs).toMatchObject({ dockerfile: 'Dockerfile', target: 'dev' });
      expect(b.kwargs.build_args).toEqual({
        COMPONENT: name,
        WORKSPACE: c.workspace,
        DESCRIPTION: c.description,
        PORTS: Object.values(c.ports)
          .map((p) => p.port)
          .join(' '),
      });
    }
  });

  it("when it forwards ports, then they are npm start's ports from the manifest (NATS to its in-cluster port)", () => {
    const forward = (component: string, role: string) => {
      const p = manifest.components[component]!.ports[role]!;
      return `${p.port}:${p.kubernetes ?? p.port}`;
    };
    expect(resource('nats')?.kwargs.port_forwards).toEqual([forward('nats', 'nats'), forward('nats', 'monitor')]);
    expect(resource('ws-fanout')?.kwargs.port_forwards).toEqual([forward('ws-fanout', 'websocket')]);
    expect(resource('auth')?.kwargs.port_forwards).toEqual([forward('auth', 'http'), forward('local-oidc', 'http')]);
    expect(resource('billing')?.kwargs.port_forwards).toEqual([forward('billing', 'http'), forward('local-stripe', 'http')]);
    for (const name of ['credential-issuer', 'token-price', 'web']) expect(resource(name)?.kwargs.port_forwards, name).toEqual([forward(name, 'http')]);
    const ingress = calls.find((c) => c.kind === 'local_resource')!;
    expect(ingress.kwargs.readiness_probe).toEqual({ tcp_socket: { port: port('ingress', 'http') } });
    expect(ingress.kwargs.serve_env).toEqual({ INGRESS_PORT: String(port('ingress', 'http')) });
    expect(resource('ingest')?.kwargs.links).toEqual([{ url: `http://localhost:${port('nats', 'monitor')}/jsz`, name: 'JetStream' }]);
  });
});

describe('docs/architecture.md §4', () => {
  it('when the manifest changes, then the generated ports table in the doc matches it (else run `npx tsx scripts/docs-ports.ts`)', () => {
    const doc = read('docs/architecture.md');
    expect(withPortsTable(doc, renderPortsTable(manifest)), 'docs/architecture.md §4 is stale: run `npx tsx scripts/docs-ports.ts`').toBe(doc);
    const section = doc.slice(doc.indexOf('## 4. Ports'), doc.indexOf('## 5.'));
    expect(section).toContain(PORTS_BEGIN);
  });

  it('when a port in the manifest differs from the doc, then the check sees it; a missing marker is an error', () => {
    const doc = read('docs/architecture.md');
    const other: ServicesManifest = clone(manifest);
    other.components['ws-fanout']!.ports.websocket!.port = 19223;
    const table = renderPortsTable(other);
    expect(table).toContain('websocket 19223 (`PORT`)');
    expect(withPortsTable(doc, table)).not.toBe(doc);
    expect(() => withPortsTable(doc.replace(PORTS_END, ''), table)).toThrow(/markers/);
  });
});
