import { useCallback, useEffect, useRef, useState } from 'react';
import { SchemaTable } from '../docs/SchemaTable';
import { deref, describeType, schemaRows, type JsonSchema } from '../../lib/schema';
import './http-api.css';

/** Where the web server answers the OpenAPI 3.1 document (web/server/app.ts OPENAPI_PATH). */
export const OPENAPI_URL = '/api/openapi.json';

/** The parts of an OpenAPI 3.1 document this page reads (scripts/openapi.ts writes it). */
export interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string; description?: string };
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    securitySchemes?: Record<string, { type: string; scheme?: string; in?: string; name?: string; description?: string }>;
  };
}

/** One operation of {@link OpenApiDoc}. */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: JsonSchema }>;
  requestBody?: { required?: boolean; description?: string; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { description: string; headers?: Record<string, { description?: string }>; content?: Record<string, { schema: JsonSchema }> }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Readable names of the document's security schemes (services/lib/src/openapi.ts SECURITY_SCHEMES). */
const AUTH_NAMES: Readonly<Record<string, string>> = {
  bearer: 'Bearer access token',
  refreshCookie: 'Refresh cookie (tw_refresh)',
  stripeSignature: 'Stripe-Signature header',
};

/** "Bearer access token", "Bearer access token or Refresh cookie (tw_refresh), optional", "None". */
export function authText(security: OpenApiOperation['security']): string {
  const schemes = (security ?? []).flatMap((s) => Object.keys(s));
  if (schemes.length === 0) return 'None';
  const optional = (security ?? []).some((s) => Object.keys(s).length === 0);
  return `${schemes.map((s) => AUTH_NAMES[s] ?? s).join(' or ')}${optional ? ' (optional)' : ''}`;
}

/** Every operation of `doc` in document order: tag, method, path and the operation. */
export function operationsOf(doc: OpenApiDoc): Array<{ tag: string; method: string; path: string; op: OpenApiOperation }> {
  const out: Array<{ tag: string; method: string; path: string; op: OpenApiOperation }> = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) out.push({ tag: op.tags?.[0] ?? '', method, path, op });
    }
  }
  return out;
}

/** `#/components/schemas/User` → `User`; undefined for an inline schema. */
function refName(schema: JsonSchema): string | undefined {
  return schema.$ref?.startsWith('#/components/schemas/') ? schema.$ref.slice('#/components/schemas/'.length) : undefined;
}

/** A body schema as tables: its properties, or one table per alternative of a union. */
function SchemaView({ doc, schema, caption }: { doc: OpenApiDoc; schema: JsonSchema; caption: string }) {
  const root = doc as unknown as JsonSchema;
  const resolved = deref(root, schema);
  const name = refName(schema);
  const alternatives = !resolved.properties ? (resolved.anyOf ?? resolved.oneOf) : undefined;
  return (
    <div className="docs-http-schema" data-schema={name ?? 'inline'}>
      <p className="muted">
        {name ? (
          <>
            <code>{name}</code>:{' '}
          </>
        ) : null}
        <code>{describeType(root, schema)}</code>
        {resolved.description ? <> — {resolved.description}</> : null}
      </p>
      {alternatives ? (
        alternatives.map((alt, i) => (
          <div key={i}>
            <p>
              One of ({i + 1}/{alternatives.length}):
            </p>
            <SchemaTable rows={schemaRows(deref(root, alt), root)} caption={`${caption}, alternative ${i + 1}`} />
          </div>
        ))
      ) : resolved.properties ? (
        <SchemaTable rows={schemaRows(resolved, root)} caption={caption} />
      ) : null}
    </div>
  );
}

function Operation({ doc, method, path, op }: { doc: OpenApiDoc; method: string; path: string; op: OpenApiOperation }) {
  const id = `http-${op.operationId}`;
  const errorSchemas = new Set(['ErrorBody', 'CredentialError']);
  return (
    <article id={id} aria-labelledby={`${id}-h`} className="docs-subsection docs-http-op" data-operation={op.operationId}>
      <h4 id={`${id}-h`}>
        <span className={`docs-http-method docs-http-${method}`}>{method.toUpperCase()}</span> <code>{path}</code>
      </h4>
      <p>{op.summary}</p>
      {op.description && <p className="muted">{op.description}</p>}
      <p data-auth>Auth: {authText(op.security)}</p>
      {op.parameters && op.parameters.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">
              Parameters of {method.toUpperCase()} {path}
            </caption>
            <thead>
              <tr>
                <th scope="col">Parameter</th>
                <th scope="col">In</th>
                <th scope="col">Type</th>
                <th scope="col">Required</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {op.parameters.map((p) => (
                <tr key={`${p.in}-${p.name}`} data-parameter={p.name}>
                  <th scope="row">
                    <code>{p.name}</code>
                  </th>
                  <td>{p.in}</td>
                  <td>
                    <code>{p.schema ? describeType(doc as unknown as JsonSchema, p.schema) : 'string'}</code>
                    {p.schema?.enum ? <> ({p.schema.enum.map(String).join(', ')})</> : null}
                  </td>
                  <td>{p.required ? 'yes' : 'no'}</td>
                  <td>{p.description ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {op.requestBody &&
        Object.entries(op.requestBody.content).map(([type, media]) => (
          <div key={type} data-request>
            <h5>
              Request body (<code>{type}</code>
              {op.requestBody!.required ? '' : ', optional'})
            </h5>
            <SchemaView doc={doc} schema={media.schema} caption={`Request body of ${method.toUpperCase()} ${path}`} />
          </div>
        ))}
      <h5>Responses</h5>
      <ul className="docs-http-responses">
        {Object.entries(op.responses).map(([status, response]) => {
          const [media, ...others] = Object.entries(response.content ?? {});
          const name = media ? refName(media[1].schema) : undefined;
          const table = media && !(name && errorSchemas.has(name)) && media[0].includes('json');
          return (
            <li key={status} data-status={status}>
              <strong>{status}</strong> {response.description}
              {media && !table && (
                <>
                  {' '}
                  — <code>{name ?? media[0]}</code>
                  {name && errorSchemas.has(name) ? (
                    <>
                      {' '}
                      (<a href={`#http-schema-${name}`}>shape</a>)
                    </>
                  ) : null}
                </>
              )}
              {table && <SchemaView doc={doc} schema={media[1].schema} caption={`${status} response of ${method.toUpperCase()} ${path}`} />}
              {others.map(([type, m]) => (
                <p key={type} data-media={type}>
                  Or <code>{type}</code>
                  {m.schema.description ? <>: {m.schema.description}</> : null}
                </p>
              ))}
            </li>
          );
        })}
      </ul>
    </article>
  );
}

/**
 * The "HTTP API" section's content: every operation of the OpenAPI document read from
 * {@link OPENAPI_URL} at run time (method, path, summary, auth, parameters, request and response
 * schemas), grouped by tag, and a link to the raw document. The document (~60 KB) is fetched
 * when the section comes into view, when the page is opened at `#http-api`, or on the button.
 */
export function HttpApiReference({ url = OPENAPI_URL }: { url?: string }) {
  const [state, setState] = useState<{ status: 'idle' | 'loading' } | { status: 'loaded'; doc: OpenApiDoc } | { status: 'failed'; message: string }>({
    status: 'idle',
  });
  const started = useRef(false);
  const container = useRef<HTMLDivElement>(null);

  const load = useCallback(() => {
    if (started.current) return;
    started.current = true;
    setState({ status: 'loading' });
    void (async () => {
      try {
        const res = await fetch(url, { headers: { accept: 'application/json' } });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        const doc = (await res.json()) as OpenApiDoc;
        if (typeof doc.openapi !== 'string' || !doc.paths) throw new Error('not an OpenAPI document');
        setState({ status: 'loaded', doc });
      } catch (err) {
        started.current = false;
        setState({ status: 'failed', message: err instanceof Error ? err.message : String(err) });
      }
    })();
  }, [url]);

  useEffect(() => {
    if (typeof window !== 'undefined' && window.location.hash === '#http-api') {
      load();
      return;
    }
    const el = container.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          observer.disconnect();
          load();
        }
      },
      { rootMargin: '400px' },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [load]);

  return (
    <div ref={container} className="docs-http" data-state={state.status}>
      <p>
        The HTTP APIs (<code>/auth/*</code> and <code>/api/*</code>) are described by an OpenAPI 3.1 document, generated from the same schemas the services
        validate requests with:{' '}
        <a href={url} data-testid="openapi-link">
          {url}
        </a>
        . Errors are JSON <code>{'{status, code?, message}'}</code> (<code>/api/nats</code>: <code>{'{error, message}'}</code>); the trade-message JSON Schemas
        are served at their <code>$id</code> paths, e.g.{' '}
        <a href="/schemas/basic.pumpfun.schema.json">
          <code>/schemas/basic.pumpfun.schema.json</code>
        </a>
        , and the slot status at{' '}
        <a href="/schemas/slots.schema.json">
          <code>/schemas/slots.schema.json</code>
        </a>{' '}
        (the document lists them all under <code>x-tradewind-message-schemas</code>).
      </p>
      {state.status === 'idle' && (
        <button type="button" className="btn btn-secondary btn-sm" onClick={load}>
          Show the HTTP API reference
        </button>
      )}
      {state.status === 'loading' && <p role="status">Loading the HTTP API reference…</p>}
      {state.status === 'failed' && (
        <p role="alert">
          The HTTP API reference could not be loaded ({state.message}).{' '}
          <button type="button" className="btn btn-ghost btn-sm" onClick={load}>
            Try again
          </button>
        </p>
      )}
      {state.status === 'loaded' && <Loaded doc={state.doc} />}
    </div>
  );
}

function Loaded({ doc }: { doc: OpenApiDoc }) {
  const operations = operationsOf(doc);
  const tags: Array<{ name: string; description?: string }> = doc.tags ?? [...new Set(operations.map((o) => o.tag))].map((name) => ({ name }));
  const schemas = doc.components?.schemas ?? {};
  return (
    <>
      <p className="muted" data-testid="openapi-version">
        {doc.info.title} {doc.info.version} (OpenAPI {doc.openapi}), {operations.length} operations.
      </p>
      {['ErrorBody', 'CredentialError']
        .filter((n) => schemas[n])
        .map((name) => (
          <div key={name} id={`http-schema-${name}`} className="docs-subsection">
            <h3>
              Error body <code>{name}</code>
            </h3>
            <SchemaView doc={doc} schema={{ $ref: `#/components/schemas/${name}` }} caption={`Fields of ${name}`} />
          </div>
        ))}
      {tags.map((tag) => (
        <section key={tag.name} className="docs-subsection" aria-labelledby={`http-tag-${tag.name}`} data-tag={tag.name}>
          <h3 id={`http-tag-${tag.name}`}>{tag.name}</h3>
          {tag.description && <p className="muted">{tag.description}</p>}
          {operations
            .filter((o) => o.tag === tag.name)
            .map((o) => (
              <Operation key={`${o.method} ${o.path}`} doc={doc} method={o.method} path={o.path} op={o.op} />
            ))}
        </section>
      ))}
    </>
  );
}
