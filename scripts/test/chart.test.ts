/**
 * The Helm chart (charts/tradewind), checked without Helm or a cluster (neither can be had here):
 * values files against values.schema.json (ajv, draft-07 as Helm), the templates rendered by
 * tools/helm-render (Go text/template + Sprig, Helm's engine pieces; Debian packages golang-go,
 * golang-github-masterminds-sprig-dev, golang-gopkg-yaml.v3-dev), every rendered object against the
 * Kubernetes OpenAPI schemas (kubernetes-models) and the rules the chart promises (security context,
 * probes, grace periods, secrets only from Secrets, the ingress from the route table). The generated
 * Secrets (scripts/k8s-secrets.ts) are checked by starting a real nats-server with their auth.conf.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { createAccount, createUser, encodeUser, fmtCreds } from '@nats-io/jwt';
import { freePort, waitForPort } from '@tradewind/lib';
import { generateSecrets, secretsYaml } from '../k8s-secrets.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHART = join(ROOT, 'charts/tradewind');
const GOPATH = '/usr/share/gocode';
const haveGo = spawnSync('go', ['version']).status === 0 && existsSync(join(GOPATH, 'src/github.com/Masterminds/sprig'));
// CI installs the Go toolchain and Sprig (.ci/run); elsewhere the render tests say why they skip.
const renderIt = haveGo || process.env.CI ? it : it.skip;
if (!haveGo && !process.env.CI) console.warn('chart render tests skipped: apt-get install golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev');

type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any };

let work: string;
let renderer: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'tradewind-chart-'));
  renderer = join(work, 'helm-render');
  if (haveGo) {
    execFileSync('go', ['build', '-o', renderer, './tools/helm-render'], {
      cwd: ROOT, env: { ...process.env, GO111MODULE: 'off', GOPATH, GOFLAGS: '', GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'tradewind-go-cache') }, stdio: 'pipe',
    });
  }
}, 180_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Renders the chart; returns the objects, or throws with the renderer's message. */
function render(valueFiles: string[] = [], setJson: Record<string, unknown> = {}): Obj[] {
  const args = [...valueFiles.flatMap((f) => ['-f', join(CHART, f)]), ...Object.entries(setJson).flatMap(([k, v]) => ['--set-json', `${k}=${JSON.stringify(v)}`]), '--release', 'tradewind', '--namespace', 'tw', CHART];
  const run = spawnSync(renderer, args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr.trim());
  return parseAllDocuments(run.stdout).map((d) => {
    if (d.errors.length) throw new Error(`rendered YAML does not parse: ${d.errors[0]!.message}`);
    return d.toJS() as Obj | null;
  }).filter((o): o is Obj => o !== null);
}

function values(file: string): Record<string, unknown> {
  return parseYaml(readFileSync(join(CHART, file), 'utf8')) as Record<string, unknown>;
}

/** Helm merges -f files over values.yaml: maps key by key, anything else replaces. */
function coalesce(base: any, over: any): any {
  if (over === null) return undefined;
  if (typeof base !== 'object' || base === null || Array.isArray(base) || typeof over !== 'object' || Array.isArray(over)) return over;
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const merged = coalesce(base[k], v);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  return out;
}

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
const validateValues = ajv.compile(JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')));
const schemaErrors = (v: unknown) => (validateValues(v) ? [] : (validateValues.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));

const COMPONENTS = ['auth', 'billing', 'credential-issuer', 'token-price', 'ingest', 'ws-fanout', 'web'] as const;
const ADMIN_PORTS: Record<string, number> = { 'ws-fanout': 9301, 'credential-issuer': 9302, ingest: 9303, auth: 9304, billing: 9305, 'token-price': 9306, web: 9307 };

describe('values.schema.json', () => {
  it('when the shipped values files are checked, then each (merged over values.yaml, as Helm does) is valid', () => {
    const base = values('values.yaml');
    expect(schemaErrors(base)).toEqual([]);
    for (const file of ['values-production.yaml', 'values-dev.yaml']) expect(schemaErrors(coalesce(base, values(file))), file).toEqual([]);
  });

  it('when values carry a secret value or an unsafe setting, then the schema refuses them with the path', () => {
    const base = values('values.yaml') as any;
    const bad = (patch: object) => schemaErrors(coalesce(base, patch)).join('; ');
    expect(bad({ secrets: { stripe: 'sk_live_51Habc/xyz=' } })).toMatch(/\/secrets\/stripe must match pattern/);
    expect(bad({ default: { env: { STRIPE_SECRET_KEY: 'sk_live_x' } } })).toMatch(/\/default\/env/);
    expect(bad({ components: { auth: { env: { DATABASE_URL: 'postgres://u:p@h/db' } } } })).toMatch(/\/components\/auth\/env/);
    expect(bad({ default: { securityContext: { allowPrivilegeEscalation: true } } })).toMatch(/allowPrivilegeEscalation must be equal to constant/);
    expect(bad({ components: { wsFanout: { replicas: -1 } } })).toMatch(/\/components\/wsFanout\/replicas must be >= 0/);
    expect(bad({ components: { ingest: { source: 'geyser' } } })).toMatch(/\/components\/ingest\/source must be equal to one of the allowed values/);
    expect(bad({ stripeSecretKey: 'sk_live_x' })).toMatch(/must NOT have additional properties/);
    expect(bad({ publicUrl: 'https://tradewind.example/' })).toMatch(/\/publicUrl must match pattern/);
  });
});

describe('YAML lint', () => {
  const haveYamllint = spawnSync('yamllint', ['--version']).status === 0;
  (haveYamllint || process.env.CI ? it : it.skip)('when yamllint (.yamllint.yaml) checks the chart values and deploy/, then it reports no error', () => {
    const run = spawnSync('yamllint', ['-c', join(ROOT, '.yamllint.yaml'), '-f', 'parsable', 'charts', 'deploy'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stdout.split('\n').filter((l) => l.includes('[error]')), run.stdout).toEqual([]);
    expect(run.status).toBe(0);
  });
});

describe('route table', () => {
  it('when the chart renders the Ingress, then it reads a copy of deploy/routes.json identical to the original', () => {
    expect(readFileSync(join(CHART, 'files/routes.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'deploy/routes.json'), 'utf8'));
  });
});

describe('rendered manifests', () => {
  const scenarios: Array<[string, string[]]> = [['values.yaml', []], ['values-production.yaml', ['values-production.yaml']], ['values-dev.yaml (Tilt)', ['values-dev.yaml']]];

  renderIt.each(scenarios)('when rendered with %s, then every object is a valid Kubernetes object', async (_name, files) => {
    const objects = render(files);
    expect(objects.length).toBeGreaterThan(20);
    for (const o of objects) {
      const group = o.apiVersion.includes('/') ? o.apiVersion : `v1`;
      const mod = group === 'v1' ? await import('kubernetes-models/v1') : await import(`kubernetes-models/${group}`);
      const Model = (mod as Record<string, new (o: object) => { validate(): void }>)[o.kind];
      expect(Model, `${o.apiVersion} ${o.kind} is a known kind`).toBeDefined();
      expect(() => new Model!(o).validate(), `${o.kind} ${o.metadata.name}`).not.toThrow();
    }
  });

  renderIt.each(scenarios)('when rendered with %s, then each component has a locked-down Deployment, Service, ServiceAccount and probes on its admin port', (_name, files) => {
    const objects = render(files);
    for (const name of COMPONENTS) {
      const fullname = `tradewind-${name}`;
      const kinds = objects.filter((o) => o.metadata.name === fullname).map((o) => o.kind).sort();
      expect(kinds, name).toEqual(expect.arrayContaining(['Deployment', 'Service', 'ServiceAccount']));
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === fullname)!;
      const pod = deployment.spec.template.spec;
      expect(deployment.spec.template.metadata.labels['app.kubernetes.io/component']).toBe(name);
      expect(deployment.spec.template.metadata.annotations['prometheus.io/port']).toBe(String(ADMIN_PORTS[name]));
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of pod.containers) {
        // Only the Tilt values (development mode) make the root file system writable, for live update.
        expect(c.securityContext, `${name}/${c.name}`).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: !files.includes('values-dev.yaml'), runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
        expect(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.cpu && c.resources.limits.memory, `${name}/${c.name} resources`).toBeTruthy();
      }
      const main = pod.containers[0];
      expect(main.ports.find((p: any) => p.name === 'admin').containerPort).toBe(ADMIN_PORTS[name]);
      expect(main.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'admin' });
      expect(main.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'admin' });
      const env = Object.fromEntries(main.env.map((e: any) => [e.name, e]));
      expect(env.ADMIN_PORT.value).toBe(String(ADMIN_PORTS[name]));
      // Graceful termination matches the service's own drain: readiness delay + deadline < grace period.
      const drainMs = Number(env.SHUTDOWN_READINESS_DELAY_MS.value) + Number(env.SHUTDOWN_DEADLINE_MS.value);
      expect(pod.terminationGracePeriodSeconds * 1000, name).toBeGreaterThan(drainMs);
      // Secrets only from Secrets: no literal value for anything secret-looking.
      for (const e of main.env) {
        if (/SECRET|PASSWORD|TOKEN|_KEY$|API_KEY/.test(e.name)) expect(e.value, `${name} ${e.name} must come from a Secret`).toBeUndefined();
        if (typeof e.value === 'string') expect(e.value, `${name} ${e.name}`).not.toMatch(/sk_(live|test)_|whsec_|-----BEGIN|SU[A-Z2-7]{56}|SA[A-Z2-7]{56}|SO[A-Z2-7]{56}/);
      }
      const mounts = pod.volumes.filter((v: any) => v.secret?.secretName === 'tradewind-nats-identities');
      for (const v of mounts) {
        const keys = v.secret.items.map((i: any) => i.key);
        if (name === 'credential-issuer') expect(keys).toEqual(['identities.json']);
        else expect(keys, `${name} sees no account seeds`).not.toContain('identities.json');
      }
    }
  });

  renderIt('when rendered with defaults, then the Ingress routes exactly the route table and ws-fanout autoscales on CPU and connections per pod', () => {
    const objects = render();
    // No WebSocket ingress: clients reach ws-fanout's Service directly, so X-Forwarded-For is theirs to forge.
    const wsEnv = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'tradewind-ws-fanout')!.spec.template.spec.containers[0].env as any[];
    expect(wsEnv.some((e) => e.name === 'WS_TRUST_FORWARDED_FOR')).toBe(false);
    const routes = JSON.parse(readFileSync(join(ROOT, 'deploy/routes.json'), 'utf8')) as { routes: Array<{ path: string; pathType: string; service: string }>; default: { service: string } };
    const ingress = objects.find((o) => o.kind === 'Ingress' && o.metadata.name === 'tradewind')!;
    const paths = ingress.spec.rules[0].http.paths.map((p: any) => [p.path, p.pathType, p.backend.service.name, p.backend.service.port.name]);
    expect(paths).toEqual([
      ...routes.routes.map((r) => [r.path, r.pathType, `tradewind-${r.service}`, 'http']),
      ['/', 'Prefix', `tradewind-${routes.default.service}`, 'http'],
    ]);
    for (const [, , service] of paths) {
      const svc = objects.find((o) => o.kind === 'Service' && o.metadata.name === service);
      expect(svc?.spec.ports.some((p: any) => p.name === 'http'), `${service} has an http port`).toBe(true);
    }
    const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler')!;
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'tradewind-ws-fanout' });
    expect(hpa.spec.metrics.map((m: any) => m.type)).toEqual(['Resource', 'Pods']);
    expect(hpa.spec.metrics[1].pods.metric.name).toBe('tradewind_ws_fanout_connections');
    const wsDeployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'tradewind-ws-fanout')!;
    expect(wsDeployment.spec.replicas, 'the HPA owns the replica count').toBeUndefined();
    for (const name of COMPONENTS.filter((n) => n !== 'ingest')) expect(objects.some((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === `tradewind-${name}`), name).toBe(true);
  });

  renderIt('when rendered with values-production.yaml, then the WebSocket host gets its own Ingress with long timeouts and managed databases come from Secrets', () => {
    const objects = render(['values-production.yaml']);
    const ws = objects.find((o) => o.kind === 'Ingress' && o.metadata.name === 'tradewind-websocket')!;
    expect(ws.spec.rules[0].host).toBe('ws.tradewind.example');
    expect(ws.spec.rules[0].http.paths[0].backend.service).toEqual({ name: 'tradewind-ws-fanout', port: { name: 'websocket' } });
    expect(Number(ws.metadata.annotations!['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(3600);
    const env = (name: string) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === `tradewind-${name}`)!.spec.template.spec.containers[0].env as any[];
    expect(env('auth').find((e) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef).toEqual({ name: 'tradewind-database', key: 'url' });
    expect(env('ws-fanout').find((e) => e.name === 'REDIS_URL').valueFrom.secretKeyRef).toEqual({ name: 'tradewind-redis', key: 'url' });
    expect(env('billing').find((e) => e.name === 'STRIPE_SECRET_KEY').valueFrom.secretKeyRef).toEqual({ name: 'tradewind-stripe', key: 'secret-key' });
    expect(env('credential-issuer').find((e) => e.name === 'WS_PUBLIC_URL').value).toBe('wss://ws.tradewind.example');
    // Behind the WebSocket ingress, per-address login limits read the client address from X-Forwarded-For.
    expect(env('ws-fanout').find((e) => e.name === 'WS_TRUST_FORWARDED_FOR').value).toBe('true');
    expect(env('ingest').find((e) => e.name === 'YELLOWSTONE_X_TOKEN').valueFrom.secretKeyRef).toMatchObject({ name: 'tradewind-solana', key: 'yellowstone-x-token' });
    expect(env('auth').find((e) => e.name === 'NODE_ENV').value).toBe('production');
    expect(env('auth').some((e) => e.name === 'LOCAL_OIDC_ISSUER')).toBe(false);
  });

  renderIt('when rendered with values-dev.yaml, then sign-in and payments are the labelled local stand-ins beside auth and billing', () => {
    const objects = render(['values-dev.yaml']);
    const pod = (name: string) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === `tradewind-${name}`)!.spec.template.spec;
    expect(pod('auth').containers.map((c: any) => c.name)).toEqual(['auth', 'local-oidc']);
    expect(pod('auth').containers[0].env.find((e: any) => e.name === 'LOCAL_OIDC_ISSUER').value).toBe('http://localhost:8091');
    expect(pod('billing').containers[0].env.find((e: any) => e.name === 'LOCAL_STRIPE_PUBLIC_URL').value).toBe('http://localhost:8092');
    expect(pod('billing').containers[0].env.some((e: any) => e.name === 'STRIPE_SECRET_KEY')).toBe(false);
    expect(objects.some((o) => o.kind === 'Ingress' || o.kind === 'HorizontalPodAutoscaler')).toBe(false);
  });

  renderIt('when required settings are missing, then rendering fails with a message naming the value', () => {
    expect(() => render([], { 'ingress.websocket.enabled': true })).toThrow(/ingress.websocket.host is required/);
    expect(() => render([], { 'components.ingest.source': 'yellowstone' })).toThrow(/yellowstoneEndpoint is required/);
    expect(() => render([], { 'secrets.google': '' })).toThrow(/secrets.google .* is required/);
    expect(() => render([], { 'nats.enabled': false })).toThrow(/externalNats.url is required/);
    expect(() => render([], { 'default.securityContext': { readOnlyRootFilesystem: false, allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] } } })).toThrow(/readOnlyRootFilesystem=false is only allowed with development.enabled/);
  });
});

describe('scripts/k8s-secrets.ts', () => {
  let server: ChildProcess | undefined;
  afterAll(() => server?.kill('SIGKILL'));

  it('when run twice, then it prints the same four Secrets, and a real nats-server configured with their auth.conf accepts the services\' credentials', async () => {
    const state = join(work, 'k8s-state');
    const first = secretsYaml(await generateSecrets(state), 'tw');
    // Keys are created once: a second run re-signs the account JWTs (iat) but with the same keys.
    const keysOf = (yamlText: string) => {
      const docs = parseAllDocuments(yamlText).map((d) => (d.toJS() as { stringData: Record<string, string> }).stringData);
      const ids = JSON.parse(docs[0]!['identities.json']!) as Record<string, any>;
      const pairs = [ids.operator.identity, ids.system.identity, ids.tradewind.identity, ids.replay.identity, ids.customer_signing];
      return { keys: pairs.map((k: { seed: string; public_key: string }) => `${k.seed}/${k.public_key}`), pem: docs[2]!['private-key.pem'], key: docs[3]!.key };
    };
    expect(keysOf(secretsYaml(await generateSecrets(state), 'tw'))).toEqual(keysOf(first));
    const secrets = parseAllDocuments(first).map((d) => d.toJS() as { metadata: { name: string; namespace: string }; stringData: Record<string, string> });
    expect(secrets.map((s) => s.metadata.name)).toEqual(['tradewind-nats-identities', 'tradewind-nats-auth', 'tradewind-auth-signing-key', 'tradewind-credentials-encryption-key']);
    expect(new Set(secrets.map((s) => s.metadata.namespace))).toEqual(new Set(['tw']));
    const [identities, auth, signing, sealing] = secrets as [typeof secrets[0], typeof secrets[0], typeof secrets[0], typeof secrets[0]];
    expect(JSON.parse(identities.stringData['identities.json']!).operator.identity.seed).toMatch(/^SO/);
    expect(signing.stringData['private-key.pem']).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(sealing.stringData.key).toMatch(/^[A-Za-z0-9+/=]{44}$|^[0-9a-f]{64}$/);
    expect(auth.stringData['auth.conf']).not.toMatch(/S[OAU][A-Z2-7]{56}/);

    // The auth.conf included the way the NATS chart does ($include from the config directory).
    const dir = join(work, 'nats');
    const port = await freePort();
    execFileSync('mkdir', ['-p', join(dir, 'conf'), join(dir, 'auth'), join(dir, 'jwt'), join(dir, 'js')]);
    writeFileSync(join(dir, 'auth', 'auth.conf'), auth.stringData['auth.conf']!);
    writeFileSync(join(dir, 'conf', 'nats.conf'), [
      `port: ${port}`, 'host: 127.0.0.1',
      `jetstream { store_dir: "${join(dir, 'js')}" }`,
      `resolver { type: full, dir: "${join(dir, 'jwt')}", allow_delete: false, interval: "2m", timeout: "1.9s" }`,
      'include ../auth/auth.conf', '',
    ].join('\n'));
    writeFileSync(join(work, 'service.creds'), identities.stringData['service.creds']!);
    server = spawn('nats-server', ['-c', join(dir, 'conf', 'nats.conf')], { stdio: 'ignore' });
    await waitForPort(port, '127.0.0.1', 10_000);
    const nc = await connect({ servers: `127.0.0.1:${port}`, authenticator: credsAuthenticator(new TextEncoder().encode(identities.stringData['service.creds']!)), reconnect: false });
    const info = await (await jetstreamManager(nc)).getAccountInfo();
    expect(info.limits.max_streams).not.toBe(0);
    await nc.close();
    // A user of an account no operator of this server signed is refused.
    const strangerUser = createUser();
    const stranger = fmtCreds(await encodeUser('stranger', strangerUser, createAccount()), strangerUser);
    await expect(connect({ servers: `127.0.0.1:${port}`, authenticator: credsAuthenticator(stranger), reconnect: false })).rejects.toThrow(/Authorization Violation/i);
  }, 60_000);
});

describe('Tiltfile', () => {
  const tiltfile = readFileSync(join(ROOT, 'Tiltfile'), 'utf8');
  // Workloads of the chart's dependencies (NATS StatefulSet, Bitnami PostgreSQL and Redis), which
  // cannot be rendered here (helm dependency build needs the network).
  const DEPENDENCY_WORKLOADS = ['tradewind-nats', 'tradewind-postgresql', 'tradewind-redis-master'];

  it('when it is parsed, then it is valid Starlark syntax (Python grammar), every image has its Dockerfile and every synced path exists', () => {
    const parsed = spawnSync('python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], { input: tiltfile, encoding: 'utf8' });
    expect(parsed.status, parsed.stderr).toBe(0);
    const images = [...tiltfile.matchAll(/^service_image\('([^']+)', '([^']+)', \[([^\]]*)\]\)/gm)];
    expect(images.map((m) => m[1]).sort()).toEqual([...COMPONENTS].sort());
    const context = JSON.parse(/^IMAGE_CONTEXT = (\[.*\])$/m.exec(tiltfile)![1]!.replace(/'/g, '"')) as string[];
    const inContext = (path: string) => context.some((c) => path === c || path.startsWith(`${c}/`));
    for (const [, , dockerfile, sources] of images) {
      expect(existsSync(join(ROOT, dockerfile!)), dockerfile).toBe(true);
      // Every file the Dockerfile copies from the build context is inside the context Tilt sends.
      const copied = readFileSync(join(ROOT, dockerfile!), 'utf8').split('\n').filter((l) => /^COPY\s/.test(l) && !/--from=/.test(l))
        .flatMap((l) => l.split(/\s+/).slice(1, -1).filter((a) => !a.startsWith('--')));
      expect(copied.length, dockerfile).toBeGreaterThan(0);
      for (const src of copied) expect(inContext(src), `${dockerfile}: COPY ${src} is outside the Tiltfile's only=`).toBe(true);
      for (const src of sources!.split(',').map((s) => s.trim().replace(/'/g, '')).filter(Boolean)) expect(existsSync(join(ROOT, src)), src).toBe(true);
    }
  });

  renderIt('when its resources are matched with the chart rendered with values-dev.yaml, then every workload, image and Secret it names exists', () => {
    const objects = render(['values-dev.yaml']);
    const workloads = objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
    const named = [...tiltfile.matchAll(/^k8s_resource\('([^']+)'/gm)].map((m) => m[1]!);
    expect(named.sort()).toEqual([...workloads, ...DEPENDENCY_WORKLOADS].sort());
    const images = new Set(objects.filter((o) => o.kind === 'Deployment').flatMap((o) => o.spec.template.spec.containers.map((c: any) => c.image.split(':')[0])));
    expect([...images].sort()).toEqual(COMPONENTS.map((c) => `tradewind/${c}`).sort());
    const secrets = [...tiltfile.matchAll(/'([a-z0-9-]+):secret'/g)].map((m) => m[1]);
    expect(secrets).toEqual(['tradewind-nats-identities', 'tradewind-nats-auth', 'tradewind-auth-signing-key', 'tradewind-credentials-encryption-key']);
    for (const port of ["'9223'", "'4223:4222'", 'port=8080']) expect(tiltfile).toContain(port);
  });
});
