/**
 * Generates the OpenAPI 3.1 document of Tradewind's public HTTP APIs (issue 23, docs/openapi.md)
 * into `web/server/openapi.json`, which the web server answers at `GET /api/openapi.json`.
 *
 * The source is each service's route declaration (`services/<service>/src/http/api.ts`, the same
 * zod schemas the routes validate with), merged by `buildOpenApiDocument` (services/lib
 * openapi.ts). Generated code is committed and never edited by hand (docs/style.md §11);
 * web/server/openapi.test.ts fails when regenerating changes anything.
 *
 *   npx tsx scripts/openapi.ts            write web/server/openapi.json
 *   npx tsx scripts/openapi.ts --check    exit 1 when the committed file is out of date
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildOpenApiDocument, type ApiDeclaration, type OpenApiDocument } from '@tradewind/lib';

const ROOT = resolve(import.meta.dirname, '..');

/** Where the generated document is committed (served by web/server/app.ts). */
export const OPENAPI_FILE = join(ROOT, 'web', 'server', 'openapi.json');

/**
 * The services with a public HTTP API (deploy/routes.json) and the function of their
 * `src/http/api.ts` that returns the declaration. They are loaded by path: a service's sources
 * belong to its own TypeScript project, which this script's project does not reference.
 */
export const HTTP_APIS: Readonly<Record<string, string>> = {
  auth: 'authApi',
  billing: 'billingApi',
  'credential-issuer': 'credentialIssuerApi',
  'token-price': 'tokenPriceApi',
};

/** Every service's declaration, in {@link HTTP_APIS} order. @throws Error when a module lacks its function. */
export async function loadApiDeclarations(): Promise<ApiDeclaration[]> {
  const out: ApiDeclaration[] = [];
  for (const [service, fn] of Object.entries(HTTP_APIS)) {
    const mod = (await import(pathToFileURL(join(ROOT, 'services', service, 'src', 'http', 'api.ts')).href)) as Record<string, unknown>;
    const build = mod[fn];
    if (typeof build !== 'function') throw new Error(`services/${service}/src/http/api.ts does not export ${fn}()`);
    const api = (build as () => ApiDeclaration)();
    if (api.service !== service) throw new Error(`${fn}() declares service ${api.service}, not ${service}`);
    out.push(api);
  }
  return out;
}

/**
 * The stream's message schemas as the web server serves them at their `$id` paths: `{name: "/schemas/<name>.schema.json"}`
 * for every file in packages/contracts/schemas (the four trade subjects and `slots`), by name. The document's
 * `x-tradewind-message-schemas` (an OpenAPI extension: the messages are not HTTP bodies).
 */
export function messageSchemaList(): Record<string, string> {
  const suffix = '.schema.json';
  const names = readdirSync(join(ROOT, 'packages/contracts/schemas'))
    .filter((f) => f.endsWith(suffix))
    .map((f) => f.slice(0, -suffix.length))
    .sort();
  return Object.fromEntries(names.map((n) => [n, `/schemas/${n}${suffix}`]));
}

/** The merged document (info.version: the repository's package.json version). */
export async function buildTradewindOpenApi(): Promise<OpenApiDocument> {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const doc = await buildOpenApiDocument({
    title: 'Tradewind HTTP API',
    version,
    description:
      "The public HTTP APIs of the Tradewind origin: sign-in and the account (/auth, /api/newsletter), billing (/api/checkout-sessions, /api/upgrade-preview, /api/create-portal-session, /api/get-subscription, /api/stripe/webhook), NATS credentials (/api/nats) and the token ticker (/api/birdeye/tokens). Errors are JSON {status, code?, message} (/api/nats: {error, message}). Stream messages (trades per subject, and slot status on `slots`) are described by the JSON Schemas at /schemas/<name>.schema.json, listed in x-tradewind-message-schemas. Generated from the services' route declarations (docs/openapi.md).",
    servers: ['/'],
    apis: await loadApiDeclarations(),
  });
  return { ...doc, 'x-tradewind-message-schemas': messageSchemaList() };
}

/** The file's text: two-space JSON and a final newline. */
export function serialise(doc: OpenApiDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = serialise(await buildTradewindOpenApi());
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OPENAPI_FILE, 'utf8');
    } catch {
      // missing counts as out of date
    }
    if (current !== text) {
      console.error(`${OPENAPI_FILE} is out of date: run npx tsx scripts/openapi.ts`);
      process.exit(1);
    }
    console.log(`${OPENAPI_FILE} is up to date`);
  } else {
    writeFileSync(OPENAPI_FILE, text);
    console.log(`wrote ${OPENAPI_FILE}`);
  }
}
