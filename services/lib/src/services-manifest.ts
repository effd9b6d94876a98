/**
 * The services manifest, `deploy/services.json` (schema `deploy/services.schema.json`): every
 * component's ports by role with their local defaults, the variables that set them and the health
 * paths (docs/architecture.md §4). The services' config defaults, `npm start` and the docs table
 * read the ports from here instead of repeating the numbers (docs/style.md §13, "One source per fact").
 *
 * The file is read from disk once, on first use: it sits at the repository root (`/app` in the
 * images, which copy it), found by walking up from this module's directory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';

/** Path of the manifest relative to the repository root. */
export const SERVICES_MANIFEST_FILE = 'deploy/services.json';

const ManifestPortSchema = z
  .object({
    port: z.number().int().min(1).max(65535),
    env: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]*$/)
      .optional(),
    kubernetes: z.number().int().min(1).max(65535).optional(),
    description: z.string().min(1),
  })
  .strict();

const ManifestComponentSchema = z
  .object({
    kind: z.enum(['service', 'web', 'infrastructure', 'stand-in', 'proxy']),
    description: z.string().min(1),
    workspace: z.string().nullable(),
    main: z.string().optional(),
    ports: z.record(z.string(), ManifestPortSchema),
    health: z.object({ port: z.string(), liveness: z.string(), readiness: z.string() }).strict().optional(),
  })
  .strict();

/** The manifest's shape (a subset of what deploy/services.schema.json checks: the fields code reads). */
export const ServicesManifestSchema = z
  .object({
    $schema: z.string().optional(),
    $comment: z.string().optional(),
    components: z.record(z.string(), ManifestComponentSchema),
  })
  .strict();

/** One port of a component: `port` is the local default (1–65535), `env` the variable that overrides it. */
export type ManifestPort = z.infer<typeof ManifestPortSchema>;
/** One component of the manifest: kind, workspace, entry point, ports by role, health paths. */
export type ManifestComponent = z.infer<typeof ManifestComponentSchema>;
/** The whole manifest: components by kebab-case name. */
export type ServicesManifest = z.infer<typeof ServicesManifestSchema>;

/**
 * Finds `deploy/services.json` in `from` or the nearest parent directory that has one.
 * @throws Error naming the start directory when no parent has it.
 */
export function findServicesManifest(from: string = import.meta.dirname): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, SERVICES_MANIFEST_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`${SERVICES_MANIFEST_FILE} not found in ${from} or any parent directory`);
  }
}

/**
 * Reads and checks a services manifest.
 * @param path the file (default: {@link findServicesManifest})
 * @throws Error with the file name and every problem when it is not JSON or not a manifest.
 */
export function readServicesManifest(path: string = findServicesManifest()): ServicesManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: not readable JSON`, { cause: err });
  }
  const parsed = ServicesManifestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${path}: not a services manifest:\n  - ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n  - ')}`);
  }
  return parsed.data;
}

let cached: ServicesManifest | undefined;

/** The repository's manifest, read once (see {@link readServicesManifest} for the errors thrown). */
export function servicesManifest(): ServicesManifest {
  cached ??= readServicesManifest();
  return cached;
}

/**
 * The local default port of a component's role, e.g. `defaultPort('auth', 'grpc')` → 50051.
 * @param manifest defaults to the repository's ({@link servicesManifest})
 * @throws Error when the component or the role is not in the manifest (a typo fails at import time
 *   of the config that asks, not with a silently wrong port).
 */
export function defaultPort(component: string, role: string, manifest: ServicesManifest = servicesManifest()): number {
  const entry = manifest.components[component];
  if (!entry) throw new Error(`${SERVICES_MANIFEST_FILE}: no component "${component}"`);
  const port = entry.ports[role];
  if (!port) throw new Error(`${SERVICES_MANIFEST_FILE}: component "${component}" has no port "${role}" (has ${Object.keys(entry.ports).join(', ')})`);
  return port.port;
}
