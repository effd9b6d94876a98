/**
 * The README's Node 22 step is the command `.ci/run` runs (README.md "Two commands"). Both install
 * the npm package `node@<engines major>` (the official Node.js binary, from the npm registry) with
 * `npm install -g` into an explicit `--prefix`: the README's `/usr/local`, `.ci/run`'s a private
 * directory. The prefix is what makes the step work with both kinds of Debian npm: Debian's own
 * npm has the global prefix `/usr/local` already, NodeSource's has `/usr`, where a plain
 * `npm install -g node@22` stops with `EEXIST: file already exists /usr/bin/node` (its own node);
 * `/usr/local/bin` comes before `/usr/bin` on Debian's `PATH`. This test extracts the two commands
 * and fails when they differ in anything but the prefix directory and `.ci/run`'s report-only flags.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Flags that change only what npm prints (the audit and funding notices), not what it installs. */
const REPORT_ONLY_FLAGS = new Set(['--no-audit', '--no-fund']);

/** Shell operators that end one command of a line. */
const COMMAND_ENDS = new Set(['&&', '||', ';', '|']);

/** A `npm install … node@…` command, taken apart. */
interface NodeInstall {
  /**
   * npm's arguments from `install` on, without {@link REPORT_ONLY_FLAGS} and with the prefix
   * directory left out (`--prefix` stays), e.g. `['install', '-g', '--prefix', 'node@22']`.
   */
  argv: string[];
  /** The `--prefix` directory as written (quotes removed), undefined without one. */
  prefix: string | undefined;
  /** The package spec installed, e.g. `node@22`. */
  spec: string;
  /** The words after the command on the same line (after `&&`, `;`, …). */
  rest: string[];
}

/**
 * Takes apart the first `npm install`/`npm i` command in a shell line: its arguments up to the
 * next `&&`, `||`, `;` or `|`, words split on blanks and stripped of their double or single quotes
 * (enough for the two lines read here; no escapes or substitutions are interpreted).
 * @throws Error when the line has no npm install command or it installs no `node@…` package.
 */
function parseNodeInstall(line: string): NodeInstall {
  const words = line
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/^(["'])(.*)\1$/, '$2'));
  const at = words.findIndex((w, i) => w === 'npm' && (words[i + 1] === 'install' || words[i + 1] === 'i'));
  if (at < 0) throw new Error(`no npm install command in ${JSON.stringify(line)}`);
  const end = words.findIndex((w, i) => i > at && COMMAND_ENDS.has(w));
  const args = words.slice(at + 1, end < 0 ? undefined : end);
  const argv: string[] = [];
  let prefix: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (REPORT_ONLY_FLAGS.has(a)) continue;
    if (a === '--prefix') {
      prefix = args[++i];
      argv.push('--prefix');
    } else if (a.startsWith('--prefix=')) {
      prefix = a.slice('--prefix='.length).replace(/^(["'])(.*)\1$/, '$2');
      argv.push('--prefix');
    } else {
      argv.push(a);
    }
  }
  const spec = argv.find((a) => /^node@/.test(a));
  if (!spec) throw new Error(`${JSON.stringify(line)} installs no node@… package`);
  return { argv, prefix, spec, rest: end < 0 ? [] : words.slice(end) };
}

/** An npm command installing the node package, anywhere in a text. */
const NODE_INSTALL = /\bnpm (?:install|i) [^`\n]*\bnode@/;

/** The inline code spans (`…`) of README.md that install the node package. */
function readmeNodeInstalls(): string[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!).filter((code) => NODE_INSTALL.test(code));
}

/** The command lines (comments skipped) of .ci/run that install the node package. */
function ciNodeInstalls(): string[] {
  return readFileSync(join(ROOT, '.ci/run'), 'utf8')
    .split('\n')
    .filter((line) => !line.trim().startsWith('#') && NODE_INSTALL.test(line));
}

describe("the README's Node 22 step and .ci/run", () => {
  const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const major = /^>=\s*(\d+)/.exec(engines)?.[1];

  it('when each is searched for the command that installs node, then each has exactly one', () => {
    expect(readmeNodeInstalls()).toHaveLength(1);
    expect(ciNodeInstalls()).toHaveLength(1);
  });

  it('when the two commands are compared, then they are the same npm command but for the prefix directory and report-only flags', () => {
    const readme = parseNodeInstall(readmeNodeInstalls()[0] ?? '');
    const ci = parseNodeInstall(ciNodeInstalls()[0] ?? '');
    expect(readme.argv).toEqual(ci.argv);
  });

  it('then both install into an explicit prefix, the README into /usr/local (Debian npm or NodeSource npm alike), and the README then forgets the old node path', () => {
    const readme = parseNodeInstall(readmeNodeInstalls()[0] ?? '');
    const ci = parseNodeInstall(ciNodeInstalls()[0] ?? '');
    expect(readme.argv).toContain('-g');
    expect(readme.prefix).toBe('/usr/local');
    expect(ci.prefix).toMatch(/\S/);
    // The shell has remembered /usr/bin/node; `hash -r` makes the next `node` the new one.
    expect(readme.rest.join(' ')).toMatch(/^&& hash -r\b/);
  });

  it('then the package installed is node@<the engines major of package.json>', () => {
    expect(major, `engines.node ${JSON.stringify(engines)}: expected ">=<major>"`).toBeDefined();
    expect(parseNodeInstall(readmeNodeInstalls()[0] ?? '').spec).toBe(`node@${major}`);
    expect(parseNodeInstall(ciNodeInstalls()[0] ?? '').spec).toBe(`node@${major}`);
  });

  describe('parseNodeInstall', () => {
    it('when a line installs node, then the prefix directory and report-only flags are taken out and what follows is kept', () => {
      expect(parseNodeInstall('[ -x "$d/bin/node" ] || npm install -g --prefix "$d" --no-audit --no-fund node@22')).toEqual({
        argv: ['install', '-g', '--prefix', 'node@22'],
        prefix: '$d',
        spec: 'node@22',
        rest: [],
      });
      expect(parseNodeInstall('npm i -g --prefix=/usr/local node@22 && hash -r')).toEqual({
        argv: ['i', '-g', '--prefix', 'node@22'],
        prefix: '/usr/local',
        spec: 'node@22',
        rest: ['&&', 'hash', '-r'],
      });
    });

    it('when a line has no prefix, then the argv differs from one with a prefix', () => {
      const plain = parseNodeInstall('npm install -g node@22 && hash -r');
      expect(plain.prefix).toBeUndefined();
      expect(plain.argv).not.toEqual(parseNodeInstall('npm install -g --prefix /usr/local node@22').argv);
    });

    it('when a line installs no node package or has no npm install, then it throws', () => {
      expect(() => parseNodeInstall('npm install -g typescript')).toThrow(/installs no node@/);
      expect(() => parseNodeInstall('apt-get install -y nodejs')).toThrow(/no npm install command/);
    });
  });
});
