/**
 * credential-issuer's public HTTP API as data (issue 23): `GET|POST /api/nats` with zod schemas
 * of the query, body and responses, the source of its part of `GET /api/openapi.json`
 * (scripts/openapi.ts). Errors here are `{error, message}` (http/routes.ts), except the shared
 * 401 body. http/routes.ts validates the query and body with these schemas (keeping its messages);
 * services/credential-issuer/test/openapi.test.ts checks that the schemas and the routes agree.
 * docs/openapi.md.
 */
import { z } from 'zod';
import { ErrorBodySchema, type ApiDeclaration } from '@tradewind/lib';
import { PLAN_IDS, USAGE_DAYS, type UsageReport } from '@tradewind/contracts';

/** `?format=` of GET /api/nats. */
export const NatsQuerySchema = z.object({
  format: z.enum(['json', 'creds']).optional().describe('json (default): the connection details; creds: the standard .creds file (JWT + seed) as text/plain'),
});

/** POST /api/nats takes no parameters: no body, null or `{}`. */
export const RotateBodySchema = z.strictObject({}).nullable().describe('No parameters: send no body or {}');

/** The connection details (service.ts NatsCredentialsView). */
export const NatsCredentialsSchema = z
  .object({
    nats_connection: z.string().describe('Native NATS URL'),
    ws_connection: z.string().describe('NATS over WebSocket URL'),
    user_jwt: z.string(),
    user_nkey_seed: z.string().describe('The NKey seed (SU…): a secret'),
    plan: z.enum(PLAN_IDS),
    subjects: z.array(z.string()),
    max_connections: z.int(),
    requests_per_minute: z.int(),
    replay: z.boolean(),
    account_public_key: z.string(),
    user_public_key: z.string(),
    issued_at: z.string().describe('ISO 8601'),
    expires_at: z.string().nullable().describe('ISO 8601; null: no expiry'),
  })
  .describe('NATS credentials and what the plan allows');

/** `{error, message}`: this service's error body (http/routes.ts). */
export const CredentialErrorSchema = z
  .object({
    error: z.string().describe('invalid_argument, resource_exhausted, unavailable or internal'),
    message: z.string(),
  })
  .describe('Error body of /api/nats');

/** `{messages, bytes}` delivered over one transport (contracts usage.ts DeliveredCount). */
const DeliveredCountSchema = z.strictObject({
  messages: z.int().min(0),
  bytes: z.int().min(0).describe('Payload bytes as the delivering server counted them'),
});

/** Something in use now against the plan's limit (contracts usage.ts InUse). */
const InUseSchema = z.strictObject({
  in_use: z.int().min(0).nullable().describe('null: could not be measured at this moment'),
  limit: z.int().describe("The plan's limit"),
});

/** `GET /api/usage` 200 body: exactly `UsageReport` of @tradewind/contracts (usage.ts). */
export const UsageReportSchema = z
  .strictObject({
    plan: z.enum(PLAN_IDS),
    generated_at: z.string().describe('ISO 8601: when these figures were read'),
    report_interval_ms: z.int().describe("The longest a day's figures can lag delivery, ms"),
    days: z
      .array(
        z.strictObject({
          day: z.string().describe('YYYY-MM-DD, UTC'),
          websocket: DeliveredCountSchema,
          nats: DeliveredCountSchema,
        }),
      )
      .length(USAGE_DAYS)
      .describe(`${USAGE_DAYS} UTC days, oldest first, the last one today; zeros on a day without traffic`),
    totals: z.strictObject({ websocket: DeliveredCountSchema, nats: DeliveredCountSchema }).describe('Sums of days'),
    connections: z.strictObject({ websocket: InUseSchema, nats: InUseSchema }).describe('Connections open now per transport'),
    requests_per_minute: InUseSchema.describe('WebSocket control requests in the last minute'),
  })
  .describe('What the signed-in customer used of the plan (issue 34)');

/** Compile-time check that the schema and the contract agree (both ways, up to readonly). */
type Mutable<T> = T extends readonly (infer U)[] ? Mutable<U>[] : T extends object ? { -readonly [K in keyof T]: Mutable<T[K]> } : T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const USAGE_SCHEMA_IS_CONTRACT: Same<z.infer<typeof UsageReportSchema>, Mutable<UsageReport>> = true;
void USAGE_SCHEMA_IS_CONTRACT;

/** Errors of `GET /api/usage` other than 401: the shared `{status, code, message}`. */
const USAGE_ERRORS = {
  500: { description: 'An unexpected failure: {status: 500, code: "internal", message: "internal error"}', body: ErrorBodySchema },
  503: { description: 'The stored figures could not be read (PostgreSQL unreachable)', body: ErrorBodySchema },
} as const;

const NO_SESSION = { description: 'No valid session: exactly {"status":401,"message":"No active session"}', body: ErrorBodySchema } as const;

/** credential-issuer's declaration. */
export function credentialIssuerApi(): ApiDeclaration {
  return {
    service: 'credential-issuer',
    tag: { name: 'credentials', description: 'NATS credentials of the signed-in user (services/credential-issuer)' },
    components: { NatsCredentials: NatsCredentialsSchema, CredentialError: CredentialErrorSchema, UsageReport: UsageReportSchema },
    routes: [
      {
        method: 'get',
        path: '/api/nats',
        operationId: 'getNatsCredentials',
        summary: 'The NATS credentials (issued on first use)',
        security: ['bearer'],
        query: NatsQuerySchema,
        responses: {
          200: {
            description: 'The connection details (format=json), or the .creds file (format=creds, as an attachment tradewind.creds)',
            body: NatsCredentialsSchema,
            alternatives: [
              {
                contentType: 'text/plain; charset=utf-8',
                body: z.string().describe('The standard NATS .creds file: the user JWT and the NKey seed, each between BEGIN/END lines'),
              },
            ],
            headers: { 'Content-Disposition': 'attachment; filename="tradewind.creds" (format=creds)' },
          },
          400: { description: 'A bad format', body: CredentialErrorSchema },
          401: NO_SESSION,
          500: { description: '"Failed to fetch NATS credentials"', body: CredentialErrorSchema },
        },
      },
      {
        method: 'post',
        path: '/api/nats',
        operationId: 'rotateNatsCredentials',
        summary: 'Rotate: new credentials, the old ones revoked',
        security: ['bearer'],
        body: { schema: RotateBodySchema, required: false },
        responses: {
          200: { description: 'The new connection details', body: NatsCredentialsSchema },
          400: { description: 'A body with parameters', body: CredentialErrorSchema },
          401: NO_SESSION,
          429: { description: 'Too many rotations today (CREDENTIAL_ROTATIONS_PER_DAY)', body: CredentialErrorSchema },
          500: { description: '"Failed to rotate NATS credentials"', body: CredentialErrorSchema },
        },
      },
      {
        method: 'get',
        path: '/api/usage',
        operationId: 'getUsage',
        summary:
          'What the signed-in customer used of the plan: 30 UTC days of delivered messages and bytes per transport, and connections and requests in use now',
        security: ['bearer'],
        responses: {
          200: { description: 'The usage report', body: UsageReportSchema },
          401: NO_SESSION,
          ...USAGE_ERRORS,
        },
      },
    ],
  };
}
