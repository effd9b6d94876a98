/**
 * Debian packages the local stack (`npm start`) and the test suite (`npm test`) need from the
 * system: installed with apt when missing and the process runs as root on Debian or Ubuntu;
 * otherwise a one-line instruction in the error.
 */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** A program found on PATH (or at an absolute path), and the Debian package that provides it. */
export interface SystemProgram {
  /** Command name or absolute path, e.g. `nats-server`, `/usr/bin/chromium`. */
  command: string;
  /** Debian package, e.g. `nats-server`, `chromium`. */
  pkg: string;
}

/** True on Debian and its derivatives (ID or ID_LIKE in /etc/os-release). */
export function isDebianLike(): boolean {
  try {
    return /^(ID|ID_LIKE)=.*(debian|ubuntu)/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

/** True when `command` runs from PATH (or exists at its absolute path). */
export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v "${command.replace(/"/g, '')}"`], { stdio: 'ignore' }).status === 0;
}

/**
 * Installs the packages of the `programs` that are missing.
 * @param say progress output (one line per install).
 * @returns the packages installed (empty when nothing was missing).
 * @throws Error with the exact `apt-get` command when something is missing and the process cannot
 *   install it (not root, not Debian, no apt-get), or when apt-get fails.
 */
export function ensureSystemPrograms(programs: readonly SystemProgram[], say: (line: string) => void = () => undefined): string[] {
  const missing = [...new Set(programs.filter((p) => !hasCommand(p.command)).map((p) => p.pkg))];
  if (missing.length === 0) return [];
  const command = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() === 0 && isDebianLike() && hasCommand('apt-get')) {
    say(`Installing ${missing.join(', ')} with apt…`);
    const r = spawnSync('sh', ['-c', command], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) throw new Error(`apt-get failed (exit ${r.status}); run: sudo sh -c '${command}'`);
    return missing;
  }
  throw new Error(`missing ${missing.join(', ')}. Install ${missing.length > 1 ? 'them' : 'it'} first:\n  sudo sh -c '${command}'`);
}
