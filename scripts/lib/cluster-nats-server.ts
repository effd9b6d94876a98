/**
 * The nats-servers the multi-node tests run: the fault-injection clusters of `npm run chaos` and
 * `npm test` and the cold-start cluster test run Debian 13's 2.10.x; the test that holds the chart below
 * nats-server 2.14 runs Debian testing's newer one beside it.
 *
 * Why 2.10 for the clusters: the chart deploys nats-server 2.11.x (NATS Helm chart 1.3.x,
 * charts/tradewind/Chart.yaml), and Debian packages neither 2.11 nor 2.12. Debian 12's 2.9.10 loses
 * and re-orders data under the leader kills the chaos suite makes (docs/reliability.md, "Which
 * nats-server"); Debian testing's 2.15.x stops an R3 stream for good when a publish names a wrong
 * `Nats-Expected-Last-Msg-Id` (from 2.14.0 on, an error applying a stream entry other than a limit is
 * "unrecoverable": `scripts/test/nats-server-expectation.int.test.ts`), and ingest's ordered publisher
 * meets such refusals in every failover. 2.10 differs from 2.11 in one defect ingest guards against
 * (a staged message id answering "duplicate, seq 0", fixed in 2.11.0 by nats-io/nats-server commit
 * 9c63e12): the suite runs the harder case.
 *
 * Where from: Debian's own archive (the only package source the project may use), verified end to end
 * the way apt verifies it: the suite's `InRelease` is checked with `gpgv` against the machine's Debian
 * archive keyring (package debian-archive-keyring; Debian 12's keyring holds the Debian 13 key, and
 * testing is signed with both), the `Packages.xz` index against the SHA-256 `InRelease` lists, and the
 * `.deb` against the SHA-256 the index lists. Only the binary is unpacked (`dpkg-deb -x`), into a cache
 * directory outside the system (`$XDG_CACHE_HOME/tradewind/nats-server-<version>/`); nothing is
 * installed. It is statically linked Go; its package depends on libc6 ≥ 2.34 only (Debian 12 has 2.36).
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian suite whose nats-server the clusters run (Debian 13 "trixie": nats-server 2.10.x). */
export const DEBIAN_SUITE = 'trixie';
/** Debian suite with a nats-server of 2.14 or newer (Debian testing "forky": 2.15.x in November 2026), for the expectation test. */
export const DEBIAN_TESTING_SUITE = 'forky';
/** Debian mirror (the one the machine's apt sources name). */
export const DEBIAN_MIRROR = process.env.TRADEWIND_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
/** Keyring `InRelease` must verify against (package debian-archive-keyring). */
export const DEBIAN_KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';
/** The oldest nats-server accepted for the clusters (module comment). */
export const MIN_CLUSTER_NATS_VERSION = [2, 10] as const;
/** The first nats-server that stops a clustered stream on a wrong expectation (module comment): not accepted for the clusters. */
export const FIRST_HALTING_NATS_VERSION = [2, 14] as const;
/** Per download, ms. */
const DOWNLOAD_TIMEOUT_MS = 120_000;

function cacheRoot(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'tradewind');
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The `x.y.z` of a nats-server binary (`nats-server --version`), or null when it does not run. */
export function natsServerVersion(bin: string): string | null {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? (/v?(\d+\.\d+\.\d+)/.exec(r.stdout)?.[1] ?? null) : null;
}

const atLeast = (v: string, [wantMajor, wantMinor]: readonly [number, number]) => {
  const [major = 0, minor = 0] = v.split('.').map(Number);
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
};

/** True when version `v` (`x.y.z`) is at least {@link MIN_CLUSTER_NATS_VERSION} and below {@link FIRST_HALTING_NATS_VERSION}. */
export function isClusterCapable(v: string | null): boolean {
  return v !== null && atLeast(v, MIN_CLUSTER_NATS_VERSION) && !atLeast(v, FIRST_HALTING_NATS_VERSION);
}

/** True when version `v` (`x.y.z`) is {@link FIRST_HALTING_NATS_VERSION} or newer. */
export function isHaltingVersion(v: string | null): boolean {
  return v !== null && atLeast(v, FIRST_HALTING_NATS_VERSION);
}

/** The binary already unpacked in the cache (the newest version there) that `accept` takes, or null. */
function cached(accept: (version: string | null) => boolean): string | null {
  const root = cacheRoot();
  if (!existsSync(root)) return null;
  const dirs = readdirSync(root)
    .filter((d) => d.startsWith('nats-server-'))
    .sort()
    .reverse();
  for (const d of dirs) {
    const bin = join(root, d, 'nats-server');
    if (accept(natsServerVersion(bin))) return bin;
  }
  return null;
}

/**
 * Fetches, verifies and unpacks the nats-server of Debian suite `suite` (module comment), if `accept` takes its version.
 * @returns the path of the binary.
 * @throws Error naming the step that failed (download, signature, checksum, unpack).
 */
async function fetchVerified(suite: string, accept: (version: string | null) => boolean, say: (line: string) => void): Promise<string> {
  const arch = execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim();
  const work = mkdtempSync(join(tmpdir(), 'tw-nats-deb-'));
  try {
    const inRelease = await download(`${DEBIAN_MIRROR}/dists/${suite}/InRelease`);
    const inReleasePath = join(work, 'InRelease');
    writeFileSync(inReleasePath, inRelease);
    const verified = join(work, 'Release');
    const gpgv = spawnSync('gpgv', ['--keyring', DEBIAN_KEYRING, '--output', verified, inReleasePath], { encoding: 'utf8' });
    if (gpgv.status !== 0) throw new Error(`the ${suite} InRelease signature does not verify against ${DEBIAN_KEYRING}: ${gpgv.stderr.trim()}`);
    const release = readFileSync(verified, 'utf8');
    const indexPath = `main/binary-${arch}/Packages.xz`;
    const sha256Section = release.split(/^SHA256:$/m)[1] ?? '';
    const indexHash = new RegExp(`^\\s*([0-9a-f]{64})\\s+\\d+\\s+${indexPath.replace(/[.]/g, '\\.')}$`, 'm').exec(sha256Section)?.[1];
    if (!indexHash) throw new Error(`${indexPath} is not listed in the ${suite} Release file`);
    const index = await download(`${DEBIAN_MIRROR}/dists/${suite}/${indexPath}`);
    if (sha256(index) !== indexHash) throw new Error(`${indexPath}: SHA-256 does not match the signed Release file`);
    const packages = execFileSync('xz', ['-dc'], { input: index, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
    const stanza = packages.split('\n\n').find((s) => /^Package: nats-server$/m.test(s));
    const version = stanza && /^Version: (.+)$/m.exec(stanza)?.[1];
    const filename = stanza && /^Filename: (.+)$/m.exec(stanza)?.[1];
    const debHash = stanza && /^SHA256: ([0-9a-f]{64})$/m.exec(stanza)?.[1];
    if (!version || !filename || !debHash) throw new Error(`no nats-server package in ${suite} main/${arch}`);
    say(`fetching nats-server ${version} from Debian ${suite} (verified: InRelease signature, index and package SHA-256)`);
    const deb = await download(`${DEBIAN_MIRROR}/${filename}`);
    if (sha256(deb) !== debHash) throw new Error(`${filename}: SHA-256 does not match the signed index`);
    const debPath = join(work, 'nats-server.deb');
    writeFileSync(debPath, deb);
    const unpacked = join(work, 'root');
    execFileSync('dpkg-deb', ['-x', debPath, unpacked]);
    const upstream = version.replace(/^\d+:/, '').replace(/-[^-]+$/, '');
    const dir = join(cacheRoot(), `nats-server-${upstream}`);
    mkdirSync(dir, { recursive: true });
    const bin = join(dir, 'nats-server');
    copyFileSync(join(unpacked, 'usr', 'sbin', 'nats-server'), `${bin}.tmp`);
    chmodSync(`${bin}.tmp`, 0o755);
    renameSync(`${bin}.tmp`, bin);
    const got = natsServerVersion(bin);
    if (!accept(got)) throw new Error(`the unpacked nats-server reports ${got ?? 'nothing'}, not the version wanted from Debian ${suite}`);
    return bin;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The binary named by `envVar` when set; else `preferred` (when given and runs); else one cached that `accept`
 * takes; else Debian `suite`'s, fetched, verified and cached. Sets `envVar` for child processes and test workers.
 * @throws Error naming `purpose`, the failed step (download, signature, checksum, unpack) and the override.
 */
async function ensureNatsServer(options: {
  envVar: string;
  suite: string;
  accept: (version: string | null) => boolean;
  /** A binary to use before the cache, asked only when `envVar` is unset. */
  preferred?: () => string | undefined;
  purpose: string;
  say: (line: string) => void;
}): Promise<string> {
  const { envVar, suite, accept } = options;
  const chosen = process.env[envVar] ?? options.preferred?.() ?? cached(accept);
  if (chosen) {
    process.env[envVar] = chosen;
    return chosen;
  }
  try {
    const bin = await fetchVerified(suite, accept, options.say);
    process.env[envVar] = bin;
    return bin;
  } catch (err) {
    throw new Error(`${options.purpose} and could not fetch it from Debian ${suite}: ${(err as Error).message}. Set ${envVar} to such a binary.`, {
      cause: err,
    });
  }
}

/**
 * The nats-server binary for multi-node clusters: `NATS_CLUSTER_SERVER_BIN` when set; else the
 * system's nats-server when it is 2.10 or newer and below 2.14; else the verified Debian {@link DEBIAN_SUITE} binary,
 * fetched once into the cache. Sets `NATS_CLUSTER_SERVER_BIN` for child processes and test workers.
 * @throws Error when none of these works (the message names the failed step and the override).
 */
export function ensureClusterNatsServer(say: (line: string) => void = () => undefined): Promise<string> {
  return ensureNatsServer({
    envVar: 'NATS_CLUSTER_SERVER_BIN',
    suite: DEBIAN_SUITE,
    accept: isClusterCapable,
    preferred: () => (isClusterCapable(natsServerVersion('nats-server')) ? 'nats-server' : undefined),
    purpose: `the multi-node tests need nats-server ${MIN_CLUSTER_NATS_VERSION.join('.')} or newer, below ${FIRST_HALTING_NATS_VERSION.join('.')} (module comment),`,
    say,
  });
}

/** The cluster binary as chosen by {@link ensureClusterNatsServer} (or `NATS_CLUSTER_SERVER_BIN`); falls back to the system's nats-server. */
export function clusterNatsServerBin(): string {
  return process.env.NATS_CLUSTER_SERVER_BIN ?? process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
}

/**
 * A nats-server of {@link FIRST_HALTING_NATS_VERSION} or newer for the expectation test
 * (scripts/test/nats-server-expectation.int.test.ts): `NATS_TESTING_SERVER_BIN` when set; else the cached or
 * verified Debian {@link DEBIAN_TESTING_SUITE} binary, fetched once. Sets `NATS_TESTING_SERVER_BIN`.
 * @throws Error naming the failed step (download, signature, checksum, unpack) and the override.
 */
export function ensureTestingNatsServer(say: (line: string) => void = () => undefined): Promise<string> {
  return ensureNatsServer({
    envVar: 'NATS_TESTING_SERVER_BIN',
    suite: DEBIAN_TESTING_SUITE,
    accept: isHaltingVersion,
    purpose: `the expectation test needs nats-server ${FIRST_HALTING_NATS_VERSION.join('.')} or newer`,
    say,
  });
}
