/**
 * Environment configuration helpers. Each service declares one zod schema;
 * {@link loadConfig} parses `process.env` once, reports every bad key at once
 * and returns a frozen, typed object. Nothing else reads `process.env`.
 */
import { z } from 'zod';
import { ConfigError } from '@tradewind/contracts';

/** Log levels accepted by pino. */
export const LogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** A TCP port 0–65535 given as a decimal string (0 = pick a free port). */
export const Port = z.coerce.number().int().min(0).max(65535);

/** A positive integer given as a decimal string. */
export const PositiveInt = z.coerce.number().int().positive();

/** A non-negative number given as a decimal string. */
export const NonNegativeNumber = z.coerce.number().nonnegative();

/** A URL whose scheme is one of `schemes` (without the colon), e.g. `['nats', 'tls']`. */
export function urlWithScheme(schemes: readonly string[]) {
  return z.string().refine(
    (value) => {
      try {
        return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    { message: `must be a URL with scheme ${schemes.map((s) => `${s}://`).join(' or ')}` },
  );
}

/**
 * NATS_URL: one NATS server URL or several, comma-separated (`nats://a:4222,nats://b:4222`), each with
 * scheme nats:// or tls://. connectNats hands them to nats.js as `servers`: the client connects to
 * one and fails over to the others. A cluster behind one Kubernetes Service needs only one (the
 * servers advertise their routes); a list matters when they do not (`no_advertise`) or the Service
 * itself is down. Defaults to `defaultUrl`.
 */
export function natsServerUrls(defaultUrl: string) {
  const single = urlWithScheme(['nats', 'tls']);
  return z
    .string()
    .refine((value) => value.split(',').every((part) => single.safeParse(part.trim()).success), {
      message: 'must be one or more comma-separated URLs with scheme nats:// or tls://',
    })
    .default(defaultUrl);
}

/** An optional non-empty string; an empty variable (`KEY=`) counts as unset. */
export const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional());

/** An optional URL with one of `schemes`; an empty variable counts as unset. */
export function optionalUrl(schemes: readonly string[]) {
  return z.preprocess((v) => (v === '' ? undefined : v), urlWithScheme(schemes).optional());
}

/** Longest delay `setTimeout` honours (2^31 − 1 ms, about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Fields every service shares:
 * - `LOG_LEVEL` (default info) and `ADMIN_PORT` (metrics/health, 0 = any free port);
 * - `SHUTDOWN_READINESS_DELAY_MS` (default 0): after SIGTERM, how long `/readyz` answers 503 before
 *   the service stops listening, so load balancers and Kubernetes endpoints stop sending it traffic;
 * - `SHUTDOWN_DEADLINE_MS` (default 10 000): the whole shutdown, delay included, after which the
 *   process exits 1; keep it below the pod's termination grace period;
 * - `STARTUP_DEADLINE_MS` (default {@link DEFAULT_STARTUP_DEADLINE_MS}): how long start-up
 *   retries what it waits for (the NATS connection, JetStream, streams, durable consumers) with backoff
 *   before the process exits 1 with one `fatal:` line naming it (docs/architecture.md §9). Meanwhile
 *   `/healthz` answers 200 and `/readyz` 503. The default stays below the chart's startup probe budget
 *   (charts/tradewind/values.yaml `default.probes.startup`: periodSeconds 2 × failureThreshold 60 = 120 s),
 *   so a service gives up and says why before Kubernetes would kill it; keep it so when changing either.
 *
 * {@link loadConfig} also checks that the deadline is greater than the delay: the check cannot sit on
 * this schema, because zod refuses `.extend()` overriding a key (services override `ADMIN_PORT`) of
 * a refined object.
 */
/**
 * Replicas of a JetStream stream a service creates (NATS_STREAM_REPLICAS: TRADES for ingest, EVENTS
 * and EVENTS_DEAD_LETTER for auth, billing and credential-issuer): 1 on a single server, 3 on the
 * chart's 3-node cluster (charts/tradewind sets it from nats.config.cluster.replicas). JetStream
 * allows at most 5 and no more than the cluster's servers.
 */
export const StreamReplicas = z.coerce.number().int().min(1).max(5);

/**
 * Default STARTUP_DEADLINE_MS, ms: below the chart's startup probe budget (charts/tradewind/values.yaml
 * `default.probes.startup`: periodSeconds 2 × failureThreshold 60 = 120 s), leaving 20 s for loading the
 * process, so a service that gives up says why on its own (`fatal: …`, exit 1) before Kubernetes would.
 */
export const DEFAULT_STARTUP_DEADLINE_MS = 100_000;

export const CommonConfig = z.object({
  LOG_LEVEL: LogLevel.default('info'),
  ADMIN_PORT: Port,
  SHUTDOWN_READINESS_DELAY_MS: z.coerce.number().int().min(0).max(MAX_TIMER_MS).default(0),
  SHUTDOWN_DEADLINE_MS: PositiveInt.max(MAX_TIMER_MS).default(10_000),
  STARTUP_DEADLINE_MS: PositiveInt.max(MAX_TIMER_MS).default(DEFAULT_STARTUP_DEADLINE_MS),
});

/** Why the shutdown timings of a parsed config are inconsistent, or undefined when they are fine (or absent). */
function shutdownIssue(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { SHUTDOWN_READINESS_DELAY_MS: delay, SHUTDOWN_DEADLINE_MS: deadline } = value as Record<string, unknown>;
  const atLeast = (n: unknown, min: number): n is number => Number.isInteger(n) && (n as number) >= min;
  // A timing that is itself invalid is reported under its own key only (zod runs refinements on invalid values too).
  if (!atLeast(delay, 0) || !atLeast(deadline, 1) || deadline > delay) return undefined;
  return `must be greater than SHUTDOWN_READINESS_DELAY_MS (${delay} ms): the deadline covers the readiness delay and the stop steps after it`;
}

/**
 * Parses `env` with `schema`, and checks that `SHUTDOWN_DEADLINE_MS` exceeds `SHUTDOWN_READINESS_DELAY_MS`
 * when the schema has both (every {@link CommonConfig} extension does).
 * @returns the parsed value, frozen.
 * @throws ConfigError listing every bad key as `KEY: reason (got "value")` — secrets are never echoed.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): Readonly<z.infer<S>> {
  const checked = schema.superRefine((value, ctx) => {
    const message = shutdownIssue(value);
    if (message) ctx.addIssue({ code: 'custom', path: ['SHUTDOWN_DEADLINE_MS'], message });
  });
  const result = checked.safeParse(env);
  if (result.success) return Object.freeze(result.data) as Readonly<z.infer<S>>;
  const problems = result.error.issues.map((issue) => {
    const key = issue.path.join('.');
    const raw = env[key];
    const shown = raw === undefined ? 'unset' : /SECRET|SEED|KEY|PASSWORD|TOKEN|CREDS/i.test(key) ? 'hidden' : JSON.stringify(withoutUserinfo(raw));
    return `${key}: ${issue.message} (got ${shown})`;
  });
  throw new ConfigError(problems);
}

/** `raw` with any `user:password@` part of a URL masked, so a bad DATABASE_URL never echoes its password. */
function withoutUserinfo(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1***@');
}
