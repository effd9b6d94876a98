/**
 * The container images (docs/containers.md), checked without a Docker engine: every Dockerfile is
 * parsed and held to the rules the Helm chart and Tilt rely on — a `dev` target and a final
 * runtime stage, a numeric non-root USER, `node` as PID 1 in exec form, production dependencies
 * only, the admin port exposed, and every path copied from the context present in the repository
 * and not dropped by .dockerignore.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** One instruction: keyword (upper case), `--flag=value` options, and the rest of the line. */
interface Instruction {
  keyword: string;
  flags: Record<string, string>;
  args: string;
  line: number;
}

/** A build stage: `FROM <base> [AS <name>]` and its instructions. */
interface Stage {
  name: string;
  base: string;
  instructions: Instruction[];
}

/**
 * Parses a Dockerfile into stages: joins `\` continuations, drops comments and parser
 * directives, splits leading `--flag=value` options. Instructions before the first FROM (global
 * ARGs) are dropped. Heredocs are not supported (the project's Dockerfiles use none).
 */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line.startsWith('#') || (!pending && line === '')) return;
    if (!pending) start = i + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full === '') return;
    const match = /^(\S+)\s*(.*)$/s.exec(full);
    if (!match) return;
    const keyword = match[1]!.toUpperCase();
    let rest = match[2]!;
    const flags: Record<string, string> = {};
    for (let flag = /^--([\w-]+)(?:=(\S+))?\s*/.exec(rest); flag; flag = /^--([\w-]+)(?:=(\S+))?\s*/.exec(rest)) {
      flags[flag[1]!] = flag[2] ?? 'true';
      rest = rest.slice(flag[0].length);
    }
    if (keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest.trim());
      if (!from) throw new Error(`line ${start}: cannot parse FROM ${rest}`);
      stages.push({ name: from[2] ?? String(stages.length), base: from[1]!, instructions: [] });
      return;
    }
    stages.at(-1)?.instructions.push({ keyword, flags, args: rest.trim(), line: start });
  });
  return stages;
}

/** The exec-form argument list of CMD/ENTRYPOINT, or undefined for the shell form. */
function execForm(args: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(args);
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Sources and destination of a COPY (shell form, the only one the Dockerfiles use). */
function copyPaths(ins: Instruction): { sources: string[]; dest: string } {
  const words = ins.args.split(/\s+/);
  return { sources: words.slice(0, -1), dest: words.at(-1)! };
}

/** The ports of a stage's EXPOSE lines. */
function exposed(stage: Stage): number[] {
  return stage.instructions.filter((i) => i.keyword === 'EXPOSE').flatMap((i) => i.args.split(/\s+/).map((p) => Number(p.split('/')[0])));
}

/**
 * A .dockerignore as Docker applies it (moby/patternmatcher): `*` and `?` within one path
 * segment, `**` across segments, `!` re-includes, the last matching pattern wins, and a path is
 * excluded when it or one of its parent directories matches.
 */
function dockerignore(text: string): (path: string) => boolean {
  const patterns = text.split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pattern = (negate ? l.slice(1) : l).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      let re = '';
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i]!;
        if (c === '*' && pattern[i + 1] === '*') {
          i++;
          if (pattern[i + 1] === '/') {
            i++;
            re += '(?:.*/)?';
          } else re += '.*';
        } else if (c === '*') re += '[^/]*';
        else if (c === '?') re += '[^/]';
        else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { negate, re: new RegExp(`^${re}$`) };
    });
  return (path: string) => {
    const parts = path.split('/');
    let excluded = false;
    for (const p of patterns) {
      let match = false;
      for (let n = parts.length; n >= 1 && !match; n--) match = p.re.test(parts.slice(0, n).join('/'));
      if (match) excluded = !p.negate;
    }
    return excluded;
  };
}

/** Every file under `dir` (repository-relative paths), skipping node_modules. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    if (name === 'node_modules') return [];
    const path = `${dir}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The ADMIN_PORT default a component's config declares (`ADMIN_PORT: Port.default(9304)`). */
function adminPortDefault(configFile: string): number {
  const match = /ADMIN_PORT:\s*Port\.default\((\d+)\)/.exec(readFileSync(join(ROOT, configFile), 'utf8'));
  if (!match) throw new Error(`${configFile}: no ADMIN_PORT default`);
  return Number(match[1]);
}

/** Stages whose /app (and so node_modules) ends up in `stage`: its FROM chain and whole-/app COPY --from sources. */
function stagesFeeding(stages: Stage[], stage: Stage, seen = new Set<string>()): Stage[] {
  if (seen.has(stage.name)) return [];
  seen.add(stage.name);
  const byName = (name: string) => stages.find((s) => s.name === name);
  const feeding: Stage[] = [stage];
  const parent = byName(stage.base);
  if (parent) feeding.push(...stagesFeeding(stages, parent, seen));
  for (const ins of stage.instructions) {
    if (ins.keyword !== 'COPY' || !ins.flags.from) continue;
    const { sources } = copyPaths(ins);
    if (!sources.some((s) => /^\/app\/?$|node_modules/.test(s))) continue;
    const from = byName(ins.flags.from);
    if (from) feeding.push(...stagesFeeding(stages, from, seen));
  }
  return feeding;
}

const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[]; engines: { node: string } };

/**
 * The default of the global `ARG NODE_IMAGE=<image>` (before the first FROM; the parser drops
 * global ARGs), or undefined when the Dockerfile has none.
 */
function nodeImageDefault(text: string): string | undefined {
  const head = text.slice(0, text.search(/^FROM\s/im));
  return /^ARG\s+NODE_IMAGE=(\S+)\s*$/m.exec(head)?.[1];
}

/** The major of the root package.json `engines.node` lower bound (`>=22` → 22). */
function enginesMajor(range: string): number {
  const match = /^>=\s*(\d+)(?:\.\d+)*$/.exec(range.trim());
  if (!match) throw new Error(`engines.node ${JSON.stringify(range)}: expected ">=<major>"`);
  return Number(match[1]);
}
const services = readdirSync(join(ROOT, 'services')).filter((name) => name !== 'lib' && existsSync(join(ROOT, 'services', name, 'package.json'))).sort();
const images = [
  ...services.map((svc) => ({ name: svc, workspace: `services/${svc}`, dockerfile: `services/${svc}/Dockerfile`, config: `services/${svc}/src/config.ts`, main: `services/${svc}/src/main.ts` })),
  { name: 'web', workspace: 'web', dockerfile: 'web/Dockerfile', config: 'web/server/main.ts', main: 'web/server/main.ts' },
];
const ignored = dockerignore(readFileSync(join(ROOT, '.dockerignore'), 'utf8'));

describe('.dockerignore', () => {
  it.each([
    'node_modules/tsx/package.json', 'web/node_modules/.vite/x', 'services/auth/node_modules/x',
    '.git/config', '.tradewind/nats/identities.json', '.tradewind/credential-issuer/seed-encryption.key',
    '.env', '.env.local', 'web/.env.production', 'service.creds', 'deploy/nats/sys.creds', 'tls/server.key', 'tls/ca.pem',
    'artifacts/screenshots/home-390.png', 'coverage/index.html', 'dist/lib/index.d.ts', 'web/dist/index.html', 'web/dist-ssr/entry-server.js',
    'services/auth/src/domain/session.test.ts', 'services/auth/test/auth.int.test.ts', 'web/e2e/app.test.ts',
  ])('when the context is sent, then %s stays out', (path) => {
    expect(ignored(path)).toBe(true);
  });

  it.each([
    'package.json', 'package-lock.json', 'services/lib/src/index.ts', 'services/lib/src/gen/tradewind/v1/auth.ts',
    'services/lib/src/testing/ports.ts', 'services/ingest/idl/raydium_cp_swap.json', 'services/ingest/idl/pump.json',
    'services/ingest/idl/pump_amm.json', 'web/src/App.tsx', 'examples/websocket/README.md',
  ])('when the context is sent, then %s is in it', (path) => {
    expect(ignored(path)).toBe(false);
  });
});

describe('Dockerfiles', () => {
  it('when a service is added, then it has a Dockerfile', () => {
    for (const image of images) expect(existsSync(join(ROOT, image.dockerfile)), image.dockerfile).toBe(true);
  });

  describe.each(images)('$dockerfile', (image) => {
    const stages = parseDockerfile(readFileSync(join(ROOT, image.dockerfile), 'utf8'));
    const runtime = stages.at(-1)!;
    const dev = stages.find((s) => s.name === 'dev');
    const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);
    const last = (stage: Stage, keyword: string) => all(stage, keyword).at(-1);

    it('then every stage is built on the Debian slim Node image of the engines major (ARG NODE_IMAGE) or on an earlier stage', () => {
      const base = nodeImageDefault(readFileSync(join(ROOT, image.dockerfile), 'utf8'));
      expect(base, 'ARG NODE_IMAGE=… before the first FROM').toBe(`node:${enginesMajor(rootPackage.engines.node)}-bookworm-slim`);
      stages.forEach((stage, i) => {
        expect(['${NODE_IMAGE}', ...stages.slice(0, i).map((s) => s.name)], `FROM ${stage.base} AS ${stage.name}`).toContain(stage.base);
      });
    });

    it('then it has a dev target and ends with the runtime stage (the default target)', () => {
      expect(dev, 'a stage named dev').toBeDefined();
      expect(runtime.name).toBe('runtime');
    });

    it.each(['runtime', 'dev'])('then the %s stage runs as a numeric non-root user', (name) => {
      const user = last(stages.find((s) => s.name === name)!, 'USER')?.args;
      expect(user, 'USER').toMatch(/^\d+(:\d+)?$/);
      expect(Number(user!.split(':')[0])).toBeGreaterThan(0);
    });

    it.each(['runtime', 'dev'])('then the %s stage starts node itself (exec form, no shell, no npm) on the component', (name) => {
      const stage = stages.find((s) => s.name === name)!;
      const entrypoint = last(stage, 'ENTRYPOINT');
      const cmd = last(stage, 'CMD');
      expect(cmd, 'CMD').toBeDefined();
      const argv = [...(entrypoint ? execForm(entrypoint.args) ?? ['<shell form>'] : []), ...(execForm(cmd!.args) ?? ['<shell form>'])];
      expect(argv[0]).toBe('node');
      expect(argv).toContain('tsx');
      expect(argv.at(-1)).toBe(image.main);
      expect(existsSync(join(ROOT, image.main))).toBe(true);
    });

    it('then the runtime stage is production: NODE_ENV, no tsx cache writes, OCI labels', () => {
      const env = all(runtime, 'ENV').map((i) => i.args).join(' ');
      expect(env).toMatch(/\bNODE_ENV=production\b/);
      expect(env).toMatch(/\bTSX_DISABLE_CACHE=1\b/);
      const labels = all(runtime, 'LABEL').map((i) => i.args).join(' ');
      for (const key of ['source', 'title', 'description']) expect(labels).toContain(`org.opencontainers.image.${key}=`);
    });

    it.each(['runtime', 'dev'])('then the %s stage exposes the admin port the config defaults to', (name) => {
      expect(exposed(stages.find((s) => s.name === name)!)).toContain(adminPortDefault(image.config));
    });

    it('then every path copied from the context exists and is not dropped by .dockerignore', () => {
      const copies = stages.flatMap((s) => all(s, 'COPY').filter((i) => !i.flags.from));
      expect(copies.length).toBeGreaterThan(0);
      for (const ins of copies) {
        for (const source of copyPaths(ins).sources) {
          const where = `${image.dockerfile}:${ins.line} COPY ${source}`;
          expect(source, `${where}: copy named paths, not the whole context`).not.toMatch(/^\.\/?$/);
          expect(existsSync(join(ROOT, source)), `${where}: missing`).toBe(true);
          expect(ignored(source), `${where}: excluded by .dockerignore`).toBe(false);
          if (statSync(join(ROOT, source)).isDirectory()) {
            expect(filesUnder(source).filter((f) => !ignored(f)).length, `${where}: nothing left after .dockerignore`).toBeGreaterThan(0);
          }
        }
      }
    });

    it('then every workspace manifest is copied before npm ci (npm ci checks the whole workspace)', () => {
      const copied = new Set(stages.flatMap((s) => all(s, 'COPY').filter((i) => !i.flags.from).flatMap((i) => copyPaths(i).sources)));
      for (const manifest of ['package.json', 'package-lock.json', ...rootPackage.workspaces.map((w) => `${w}/package.json`)]) {
        expect(copied, manifest).toContain(manifest);
      }
    });

    it('then the runtime stage gets production dependencies of its own workspace only', () => {
      const feeding = stagesFeeding(stages, runtime);
      const installs = feeding.flatMap((s) => all(s, 'RUN')).filter((i) => /\bnpm\s+(ci|install|i)\b/.test(i.args));
      expect(installs.length, 'an npm ci in a stage the runtime copies /app from').toBeGreaterThan(0);
      for (const ins of installs) {
        expect(ins.args, `line ${ins.line}`).toMatch(/--omit=dev\b/);
        expect(ins.args, `line ${ins.line}`).toMatch(new RegExp(`--workspace[= ]${image.workspace}(\\s|$)`));
        expect(ins.args, `line ${ins.line}`).toMatch(/--include-workspace-root=false\b/);
      }
      for (const ins of all(runtime, 'RUN')) expect(ins.args, `line ${ins.line}: no installs in the runtime stage itself`).not.toMatch(/\bnpm\b/);
    });
  });
});

describe('the test itself', () => {
  it('when a Dockerfile has no USER in its runtime stage, then the parse shows it', () => {
    const text = 'FROM node:20 AS dev\nUSER 1\nCMD ["node"]\nFROM node:20 AS runtime\n# USER 10001\nCMD ["node", "--import", "tsx", "x.ts"]\n';
    const stages = parseDockerfile(text);
    expect(stages.map((s) => s.name)).toEqual(['dev', 'runtime']);
    expect(stages[1]!.instructions.filter((i) => i.keyword === 'USER')).toEqual([]);
  });

  it('when the Node image is given as a global ARG, then its default is read; engines ">=22" gives major 22', () => {
    expect(nodeImageDefault('# syntax=docker/dockerfile:1\nARG NODE_IMAGE=node:20-bookworm-slim\nFROM ${NODE_IMAGE} AS a\nARG NODE_IMAGE=x\n')).toBe('node:20-bookworm-slim');
    expect(nodeImageDefault('FROM node:22\nARG NODE_IMAGE=node:22-bookworm-slim\n')).toBeUndefined();
    expect(enginesMajor('>=22')).toBe(22);
    expect(enginesMajor('>= 22.12.0')).toBe(22);
    expect(() => enginesMajor('^22')).toThrow(/expected/);
  });

  it('when an instruction spans lines, then it is one instruction with its flags split off', () => {
    const [stage] = parseDockerfile('FROM x AS a\nRUN --mount=type=cache,target=/root/.npm \\\n    npm ci --omit=dev\n');
    expect(stage!.instructions).toEqual([{ keyword: 'RUN', flags: { mount: 'type=cache,target=/root/.npm' }, args: 'npm ci --omit=dev', line: 2 }]);
  });

  it('when a later pattern re-includes a path, then it is not excluded', () => {
    const ignore = dockerignore('docs\n**/*.md\n!examples/**/README.md\n');
    expect([ignore('docs/a.txt'), ignore('x/y.md'), ignore('examples/websocket/README.md'), ignore('src/a.ts')]).toEqual([true, true, false, false]);
  });
});
