/**
 * OpenAPI 3.1 from route declarations (issue 23). Each service declares its public HTTP routes once
 * in `src/http/api.ts` as {@link ApiDeclaration}s whose request and response shapes are zod
 * schemas; {@link buildOpenApiDocument} turns them into one OpenAPI 3.1 document (paths,
 * components.schemas via zod 4's `z.toJSONSchema`, draft 2020-12 as OpenAPI 3.1 requires), and
 * {@link openApiProblems} checks a document's structure and `$ref`s. docs/openapi.md.
 */
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';

/** The HTTP methods the public APIs use (lower case, as OpenAPI path items key them). */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The security schemes of the public origin:
 * - `bearer`: `Authorization: Bearer <access token>` (an ES256 JWT from auth, docs/auth.md);
 * - `refreshCookie`: the HttpOnly `tw_refresh` cookie auth sets (path /auth);
 * - `stripeSignature`: the `Stripe-Signature` header of a Stripe webhook delivery.
 */
export type ApiSecurity = 'bearer' | 'refreshCookie' | 'stripeSignature';

/** OpenAPI `components.securitySchemes` for {@link ApiSecurity}. */
export const SECURITY_SCHEMES: Readonly<Record<ApiSecurity, Record<string, string>>> = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token from POST /auth/token or the sign-in callback (ES256, 15 min by default; keys at /auth/.well-known/jwks.json).',
  },
  refreshCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'tw_refresh',
    description: 'HttpOnly refresh-token cookie set by auth on sign-in and refresh (path /auth).',
  },
  stripeSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Stripe-Signature',
    description: "Stripe's webhook signature over the raw body (https://docs.stripe.com/webhooks#verify-events).",
  },
};

/**
 * The shared error body `{status, code?, message}` (services/lib/src/http.ts, docs/style.md §4).
 * `code` is an ErrorCode, or a route's own code (`rate_limited`, `invalid_email`,
 * `invalid_signature`); the spec's 401 "No active session" body has no `code`.
 */
export const ErrorBodySchema = z
  .object({
    status: z.int().min(400).max(599).describe('The HTTP status, repeated'),
    code: z
      .string()
      .optional()
      .describe(
        "Machine-readable reason: an error code (invalid_argument, unauthenticated, permission_denied, not_found, conflict, resource_exhausted, unavailable, internal) or the route's own code",
      ),
    message: z.string().describe('Readable reason, safe to show'),
  })
  .describe('Error body of every Tradewind HTTP API');

/** A response of one status. */
export interface ApiResponse {
  description: string;
  /** JSON body (or the `contentType` body); undefined: no body (204, 302). */
  body?: z.ZodType;
  /** Media type of `body` (default application/json). */
  contentType?: string;
  /** Response headers worth knowing (Location, Retry-After, Set-Cookie), by name → description. */
  headers?: Record<string, string>;
  /** Other media types the same status may carry (e.g. `text/plain` for `?format=creds`). */
  alternatives?: Array<{ contentType: string; body: z.ZodType }>;
}

/** One public HTTP route. */
export interface ApiRoute {
  method: HttpMethod;
  /** The fastify path; `:name` segments become OpenAPI `{name}`. */
  path: string;
  /** Unique across the document, camelCase. */
  operationId: string;
  summary: string;
  description?: string;
  /**
   * Accepted credentials, any one of them; empty: public. With `authOptional` the route also
   * works without any (OpenAPI's empty security requirement).
   */
  security: ApiSecurity[];
  authOptional?: boolean;
  /** Query parameters: an object schema whose properties are the parameters (all strings on the wire). */
  query?: z.ZodObject;
  /** The request body; `required: false` when the route also accepts none. */
  body?: { schema: z.ZodType; required: boolean; contentType?: string; description?: string };
  /** Every status the route answers on purpose, with its body. */
  responses: Record<number, ApiResponse>;
}

/** One service's routes, with the tag they are grouped under. */
export interface ApiDeclaration {
  /** The service (deploy/routes.json name), e.g. `auth`. */
  service: string;
  /** Tag name and its description. */
  tag: { name: string; description: string };
  routes: ApiRoute[];
  /**
   * Shared schemas to name in `components.schemas` (e.g. `User`), so that every use is a `$ref`.
   * Names must be unique across the merged document.
   */
  components?: Record<string, z.ZodType>;
  /**
   * The `default` response of every route that does not declare its own: what the service's error
   * handler answers for any other failure (e.g. 500 internal, 503 unavailable, 413 body too large).
   */
  defaultResponse?: ApiResponse;
}

/** The `default` response of the services on the shared error handler (services/lib/src/http.ts createHttpApp). */
export const DEFAULT_ERROR_RESPONSE: ApiResponse = {
  description: 'Any other error, as {status, code, message}: 413 body too large, 500 internal ("internal error"), 503 unavailable',
  body: ErrorBodySchema,
};

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  title: string;
  version: string;
  description?: string;
  /** Server URLs (e.g. the public origin); default `/` (same origin as the document). */
  servers?: string[];
  apis: ApiDeclaration[];
}

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };

// Names come from our own registry; descriptions set with .describe()/.meta() live in zod's global one.
class LayeredRegistry extends z.core.$ZodRegistry<{ id?: string }> {
  override get(schema: z.core.$ZodType): { id?: string } | undefined {
    const own = super.get(schema as never);
    const global = z.globalRegistry.get(schema);
    if (!own && !global) return undefined;
    const { id: _ignored, ...globalMeta } = (global ?? {}) as Record<string, unknown>;
    return { ...globalMeta, ...own } as { id?: string };
  }
}

const REF = (id: string) => `#/components/schemas/${id}`;

/** `/auth/:id` → `/auth/{id}` (OpenAPI path templating). */
export function openApiPath(fastifyPath: string): string {
  return fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/**
 * The OpenAPI 3.1 document of `options.apis`: one path item per path, one operation per route,
 * every request and response body a `$ref` into `components.schemas` (shared `components` by their
 * name, the rest as `<OperationId>Request` / `<OperationId><Status>`), query parameters inline,
 * and the error body as `ErrorBody`. Bodies are converted with zod's `io: "input"` (what a client
 * may send, and what the route answers: the schemas have no transforms).
 * @throws Error for a duplicate operationId, method+path, or component name.
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions): OpenApiDocument {
  const registry = new LayeredRegistry();
  const named = new Map<string, z.ZodType>();
  const name = (schema: z.ZodType, id: string): void => {
    const existing = named.get(id);
    if (existing && existing !== schema) throw new Error(`two schemas are named ${id}`);
    if (!existing && !registry.has(schema as never)) {
      registry.add(schema as never, { id });
      named.set(id, schema);
    }
  };
  name(ErrorBodySchema, 'ErrorBody');
  for (const api of options.apis) for (const [id, schema] of Object.entries(api.components ?? {})) name(schema, id);
  const refOf = (schema: z.ZodType, fallbackId: string): { $ref: string } => {
    name(schema, fallbackId);
    return { $ref: REF((registry.get(schema as never) as { id: string }).id) };
  };

  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  const usedSecurity = new Set<ApiSecurity>();
  for (const api of options.apis) {
    for (const route of api.routes) {
      if (operationIds.has(route.operationId)) throw new Error(`duplicate operationId ${route.operationId}`);
      operationIds.add(route.operationId);
      const path = openApiPath(route.path);
      const item = (paths[path] ??= {});
      if (item[route.method]) throw new Error(`duplicate route ${route.method.toUpperCase()} ${route.path}`);
      const op: Record<string, unknown> = { operationId: route.operationId, summary: route.summary, tags: [api.tag.name] };
      if (route.description) op.description = route.description;
      const parameters: Record<string, unknown>[] = [];
      for (const m of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
      if (route.query) {
        for (const [key, field] of Object.entries(route.query.shape as Record<string, z.ZodType>)) {
          const schema = jsonSchemaOf(field);
          const { description, ...rest } = schema;
          parameters.push({ name: key, in: 'query', required: !field.safeParse(undefined).success, ...(description ? { description } : {}), schema: rest });
        }
      }
      if (parameters.length > 0) op.parameters = parameters;
      if (route.body) {
        op.requestBody = {
          required: route.body.required,
          ...(route.body.description ? { description: route.body.description } : {}),
          content: { [route.body.contentType ?? 'application/json']: { schema: refOf(route.body.schema, `${upperFirst(route.operationId)}Request`) } },
        };
      }
      const responses: Record<string, unknown> = {};
      const declared: Array<[string, ApiResponse]> = Object.entries(route.responses);
      if (api.defaultResponse) declared.push(['default', api.defaultResponse]);
      for (const [status, response] of declared) {
        const r: Record<string, unknown> = { description: response.description };
        if (response.headers)
          r.headers = Object.fromEntries(Object.entries(response.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }]));
        const media = [
          ...(response.body ? [{ contentType: response.contentType ?? 'application/json', body: response.body }] : []),
          ...(response.alternatives ?? []),
        ];
        if (media.length > 0) {
          // JSON bodies are named components; other media types (text) are described inline.
          r.content = Object.fromEntries(
            media.map((m) => [
              m.contentType,
              {
                schema: m.contentType.includes('json') ? refOf(m.body, `${upperFirst(route.operationId)}${status}`) : jsonSchemaOf(m.body),
              },
            ]),
          );
        }
        responses[status] = r;
      }
      op.responses = responses;
      if (route.security.length > 0) {
        route.security.forEach((s) => usedSecurity.add(s));
        op.security = [...route.security.map((s) => ({ [s]: [] })), ...(route.authOptional ? [{}] : [])];
      } else {
        op.security = [];
      }
      item[route.method] = op;
    }
  }

  const converted = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any', uri: REF }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  const schemas: Record<string, unknown> = {};
  for (const id of [...Object.keys(converted.schemas)].sort()) {
    const { $schema: _s, $id: _i, ...rest } = converted.schemas[id]!;
    schemas[id] = rest;
  }
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version, ...(options.description ? { description: options.description } : {}) },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: (options.servers ?? ['/']).map((url) => ({ url })),
    tags: options.apis.map((a) => a.tag),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas,
      securitySchemes: Object.fromEntries([...usedSecurity].sort().map((s) => [s, SECURITY_SCHEMES[s]])),
    },
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The JSON pointer `ref` (`#/a/b`) in `doc`, or undefined when it does not resolve. */
function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * What is wrong with `doc` as an OpenAPI 3.1 document, checked structurally (OpenAPI 3.1.0
 * §4.8: `openapi` "3.1.x", `info.title`/`info.version`, path keys starting with `/`, every
 * operation with at least one response whose key is a status code, `default` or `NXX`, path
 * parameters declared, operationIds unique, every local `$ref` resolving, security schemes
 * declared). @returns one line per problem; empty when none.
 */
export function openApiProblems(doc: unknown): string[] {
  const problems: string[] = [];
  if (doc === null || typeof doc !== 'object') return ['the document is not an object'];
  const d = doc as Record<string, unknown>;
  if (typeof d.openapi !== 'string' || !/^3\.1\.\d+$/.test(d.openapi)) problems.push(`openapi must be "3.1.x", not ${JSON.stringify(d.openapi)}`);
  const info = d.info as Record<string, unknown> | undefined;
  if (!info || typeof info.title !== 'string' || typeof info.version !== 'string') problems.push('info needs a title and a version (strings)');
  if (d.paths === null || typeof d.paths !== 'object') problems.push('paths must be an object');
  const schemes = ((d.components as Record<string, unknown> | undefined)?.securitySchemes ?? {}) as Record<string, unknown>;
  const ids = new Set<string>();
  for (const [path, item] of Object.entries((d.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    if (!path.startsWith('/')) problems.push(`path ${path} must start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const responses = op.responses as Record<string, unknown> | undefined;
      if (!responses || typeof responses !== 'object' || Object.keys(responses).length === 0) problems.push(`${where} has no responses`);
      for (const key of Object.keys(responses ?? {})) {
        if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(key)) problems.push(`${where} has a response key ${key} that is not a status`);
        const r = (responses as Record<string, Record<string, unknown>>)[key]!;
        if (typeof r.description !== 'string' && typeof r.$ref !== 'string') problems.push(`${where} ${key} needs a description`);
      }
      if (typeof op.operationId === 'string') {
        if (ids.has(op.operationId)) problems.push(`operationId ${op.operationId} is used twice`);
        ids.add(op.operationId);
      }
      const declared = ((op.parameters ?? []) as Array<Record<string, unknown>>).filter((p) => p.in === 'path').map((p) => p.name);
      for (const name of templated) if (!declared.includes(name)) problems.push(`${where} does not declare its path parameter ${name}`);
      for (const requirement of (op.security ?? []) as Array<Record<string, unknown>>) {
        for (const scheme of Object.keys(requirement)) if (!(scheme in schemes)) problems.push(`${where} uses the undeclared security scheme ${scheme}`);
      }
    }
  }
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${at}/${i}`));
    else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string' && resolvePointer(doc, v) === undefined) problems.push(`${at}: $ref ${v} does not resolve`);
        else walk(v, `${at}/${k}`);
      }
    }
  };
  walk(doc, '#');
  return problems;
}

/**
 * `METHOD /path` (upper-case method, fastify `:param` form) of every operation in `doc`, sorted:
 * what tests compare with the routes a fastify app registered.
 */
export function openApiOperations(doc: OpenApiDocument): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`);
  }
  return out.sort();
}

/**
 * Records every route registered on `app` from now on as `METHOD /path` (fastify's automatic HEAD
 * routes left out): call it before the routes are registered, read the array after `app.ready()`.
 * Tests compare it with {@link openApiOperations} of the service's declaration.
 */
export function recordRoutes(app: FastifyInstance): string[] {
  const seen: string[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') seen.push(`${method} ${route.url}`);
  });
  return seen;
}
