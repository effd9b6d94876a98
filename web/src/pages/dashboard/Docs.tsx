import { useEffect, useState } from 'react';
import { PLANS, PLAN_IDS, cheapestPlanFor, type Plan } from '@tradewind/contracts/plans';
import { apiFetch, type NatsCredentials } from '../../api';
import { CodeBlock } from '../../components/docs/CodeBlock';
import { SchemaTable } from '../../components/docs/SchemaTable';
import { HttpApiReference } from '../../components/openapi/HttpApiReference';
import { HTTP_ERRORS, NATS_ERRORS, WS_CONTROL_MESSAGES, WS_ERROR_CODES, WS_LIMITS, WS_OTHER_CLOSE_CODES, type WsLimit } from '../../content/api-reference';
import { STARTER_TEMPLATES, templateFileUrl } from '../../content/templates';
import { alternativeRules, conditionalRequirements, schemaRows, type JsonSchema } from '../../lib/schema';
import { Seo } from '../../seo';
import { useAuth } from '../../session/session';
import { SITE } from '../../site';
// The message schemas ingest validates against, bundled at build time (nothing below retypes them).
// Imported as text: web/tsconfig.json (a composite project) does not list files outside web/, so a
// plain JSON import fails `tsc --build` with TS6307; `?raw` is typed by vite/client.
import pumpfunSchema from '@tradewind/contracts/schemas/basic.pumpfun.schema.json?raw';
import bonkSchema from '@tradewind/contracts/schemas/basic.bonk.schema.json?raw';
import pumpswapSchema from '@tradewind/contracts/schemas/premium.pumpswap.schema.json?raw';
import raydiumSchema from '@tradewind/contracts/schemas/premium.raydium.schema.json?raw';
import slotsSchema from '@tradewind/contracts/schemas/slots.schema.json?raw';
// The starter templates' own code (examples/), so the samples are exactly what the templates run.
import wsClientCode from '../../../../examples/websocket/client.mjs?raw';
import pythonClientCode from '../../../../examples/python/client.py?raw';
import natsClientCode from '../../../../examples/typescript/src/main.ts?raw';
import './docs.css';

/** Every TRADES subject of the catalogue, in catalogue order (cheapest plan first). */
export const DOC_SUBJECTS: readonly string[] = [...new Set(PLAN_IDS.flatMap((id) => PLANS[id].subjects))];

/** The slot status subject (@tradewind/contracts SLOTS_SUBJECT): every plan reads it. */
const SLOTS = 'slots';

/** Every subject with a message schema: the trade subjects, then `slots`. */
const SCHEMA_SUBJECTS: readonly string[] = [...DOC_SUBJECTS, SLOTS];

/** The JSON Schema of each subject's messages (packages/contracts/schemas/<subject>.schema.json). */
export const MESSAGE_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  'basic.pumpfun': JSON.parse(pumpfunSchema) as JsonSchema,
  'basic.bonk': JSON.parse(bonkSchema) as JsonSchema,
  'premium.pumpswap': JSON.parse(pumpswapSchema) as JsonSchema,
  'premium.raydium': JSON.parse(raydiumSchema) as JsonSchema,
  [SLOTS]: JSON.parse(slotsSchema) as JsonSchema,
};

/** Element id of a subject's schema section, e.g. `schema-basic-pumpfun`. */
export function schemaSectionId(subject: string): string {
  return `schema-${subject.replace(/\./g, '-')}`;
}

/** Code samples: the template files themselves. */
export const CODE_SAMPLES = [
  { id: 'sample-js', title: 'WebSocket — JavaScript (Node.js)', file: 'examples/websocket/client.mjs', language: 'javascript', code: wsClientCode },
  { id: 'sample-python', title: 'WebSocket — Python', file: 'examples/python/client.py', language: 'python', code: pythonClientCode },
  { id: 'sample-nats', title: 'NATS JetStream — TypeScript', file: 'examples/typescript/src/main.ts', language: 'typescript', code: natsClientCode },
] as const;

const SECTIONS = [
  { id: 'overview', title: 'Overview' },
  { id: 'authentication', title: 'Authentication' },
  { id: 'websocket', title: 'WebSocket' },
  { id: 'nats', title: 'NATS JetStream' },
  { id: 'subjects', title: 'Subjects per plan' },
  { id: 'schemas', title: 'Message schemas' },
  { id: 'errors', title: 'Errors and limits' },
  { id: 'http-api', title: 'HTTP API' },
  { id: 'samples', title: 'Code samples' },
  { id: 'templates', title: 'Starter templates' },
] as const;

interface Endpoints {
  ws: string;
  nats: string;
  /** Where they come from: the signed-in user's GET /api/nats, or the site defaults. */
  source: 'account' | 'default';
  plan?: string;
  accountPublicKey?: string;
}

const DEFAULT_ENDPOINTS: Endpoints = { ws: SITE.wsUrl, nats: SITE.natsUrl, source: 'default' };

/** The user's connection URLs from GET /api/nats (never the seed); the defaults when signed out or when the call fails. */
function useEndpoints(): Endpoints {
  const { status, accessToken } = useAuth();
  const [endpoints, setEndpoints] = useState<Endpoints>(DEFAULT_ENDPOINTS);
  useEffect(() => {
    if (status !== 'signed-in') return;
    const controller = new AbortController();
    void (async () => {
      try {
        const token = await accessToken();
        const c = await apiFetch<NatsCredentials>('/api/nats', { token, signal: controller.signal });
        const account = typeof c.account_public_key === 'string' ? c.account_public_key : undefined;
        setEndpoints({ ws: c.ws_connection, nats: c.nats_connection, source: 'account', plan: c.plan, ...(account ? { accountPublicKey: account } : {}) });
      } catch {
        if (!controller.signal.aborted) setEndpoints(DEFAULT_ENDPOINTS);
      }
    })();
    return () => controller.abort();
  }, [status, accessToken]);
  return endpoints;
}

/** A limit's value: the doc's text, or each plan's value from the catalogue ("Starter 1, Plus 1, Pro 5"). */
function limitValue(limit: WsLimit, plans: readonly Plan[]): string {
  const v = limit.value;
  return 'text' in v ? v.text : plans.map((p) => `${p.name} ${v.plan(p)}`).join(', ');
}

function planList(subject: string): string {
  if (subject === SLOTS) return 'every plan (the slot status of the trade subjects)';
  return PLAN_IDS.filter((id) => (PLANS[id].subjects as readonly string[]).includes(subject))
    .map((id) => PLANS[id].name)
    .join(', ');
}

/** Inline text with `code` spans (the reference tables use backticks as the docs do). */
function Md({ text }: { text: string }) {
  return <>{text.split(/(`[^`]+`)/).map((part, i) => (part.startsWith('`') && part.endsWith('`') ? <code key={i}>{part.slice(1, -1)}</code> : part))}</>;
}

function Json({ value }: { value: string }) {
  return (
    <pre tabIndex={0}>
      <code>{value}</code>
    </pre>
  );
}

/** `/dashboard/docs`: the API reference (WebSocket, NATS, subjects, message schemas, errors, limits, the HTTP API from /api/openapi.json, samples). */
export default function Docs() {
  const endpoints = useEndpoints();
  const plans = PLAN_IDS.map((id) => PLANS[id]);
  const replayPlan = plans.find((p) => p.replay);

  return (
    <div className="docs-page">
      <Seo
        title="API reference"
        description="Tradewind API reference: WebSocket and NATS JetStream connection, authentication, subjects per plan, message schemas, errors, limits and code samples."
        path="/dashboard/docs"
        noindex
      />
      <nav className="docs-toc" aria-label="On this page">
        <p className="docs-toc-title">On this page</p>
        <ol>
          {SECTIONS.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`}>{s.title}</a>
              {s.id === 'schemas' && (
                <ol>
                  {SCHEMA_SUBJECTS.map((subject) => (
                    <li key={subject}>
                      <a href={`#${schemaSectionId(subject)}`}>
                        <code>{subject}</code>
                      </a>
                    </li>
                  ))}
                </ol>
              )}
            </li>
          ))}
        </ol>
      </nav>

      <div className="docs-content">
        <h1>API reference</h1>

        <section id="overview" aria-labelledby="overview-h" className="docs-section">
          <h2 id="overview-h">Overview</h2>
          <p>
            Tradewind decodes Solana trades and publishes each one as a JSON object on a subject of the <code>TRADES</code> JetStream stream. You receive them
            over either transport, with the same credentials:
          </p>
          <ul>
            <li>
              <strong>WebSocket</strong> at <code data-testid="ws-endpoint">{endpoints.ws}</code>: JSON text frames; a small control protocol for authentication
              and subscriptions.
            </li>
            <li>
              <strong>Native NATS JetStream</strong> at <code data-testid="nats-endpoint">{endpoints.nats}</code>: any NATS client, authenticated with your{' '}
              <code>.creds</code> file.
            </li>
          </ul>
          <p className="muted" role="status">
            {endpoints.source === 'account'
              ? `These are the endpoints of your account (${endpoints.plan ? `${PLANS[endpoints.plan as keyof typeof PLANS]?.name ?? endpoints.plan} plan` : 'your plan'}); the samples below use them.`
              : 'These are the default endpoints; signed in, this page shows the endpoints of your own account.'}
          </p>
          <p>
            Trade messages are exactly the bytes published on NATS: never re-serialised, identical on both transports. Their fields are listed under{' '}
            <a href="#schemas">Message schemas</a>.
          </p>
        </section>

        <section id="authentication" aria-labelledby="authentication-h" className="docs-section">
          <h2 id="authentication-h">Authentication</h2>
          <p>
            Both transports use NATS credentials: a <strong>user JWT</strong> (your account and plan) and an <strong>NKey seed</strong>(<code>SU…</code>, the
            private key of that user). Your account has its own pair, issued when you first signed in.
          </p>
          <ul>
            <li>
              <strong>Dashboard</strong>: the connection details show the endpoints, the JWT and the seed; <em>Download .creds</em> saves the standard{' '}
              <code>.creds</code> file every NATS client library and the <code>nats</code> CLI read.
            </li>
            <li>
              <strong>API</strong> (bearer access token): <code>GET /api/nats</code> returns the credentials as JSON, <code>GET /api/nats?format=creds</code>{' '}
              the <code>.creds</code> file, <code>POST /api/nats</code> rotates them.
            </li>
            <li>
              <strong>Rotation</strong> issues a new key and JWT; the old key is revoked and its connections are closed (WebSocket: <code>revoked</code>, close
              4401; NATS: refused at reconnect). Download the new <code>.creds</code> after rotating.
            </li>
            <li>
              <strong>Local stack</strong>: <code>npm run creds -- --plan starter</code> (or <code>plus</code>, <code>pro</code>) prints developer credentials
              as JSON; <code>npm start</code> writes Starter ones to <code>.tradewind/example-creds.json</code>.
            </li>
          </ul>
          <h3>GET /api/nats</h3>
          <Json
            value={`{
  "nats_connection": "${endpoints.nats}",
  "ws_connection": "${endpoints.ws}",
  "user_jwt": "eyJ…", "user_nkey_seed": "SU…",
  "plan": "pro", "subjects": ["basic.pumpfun", "basic.bonk", "premium.pumpswap", "premium.raydium"],
  "max_connections": ${PLANS.pro.connections}, "requests_per_minute": ${PLANS.pro.requestsPerMinute}, "replay": ${PLANS.pro.replay},
  "account_public_key": "A…", "user_public_key": "U…",
  "issued_at": "…", "expires_at": "…"
}`}
          />
          <p>The seed is a secret: keep it out of version control and out of browsers; the WebSocket protocol lets you prove you hold it without sending it.</p>
        </section>

        <section id="websocket" aria-labelledby="websocket-h" className="docs-section">
          <h2 id="websocket-h">WebSocket</h2>
          <p>
            Connect to <code>{endpoints.ws}</code>. Every frame is a JSON text frame. <strong>Control messages</strong> (server → client) always have a{' '}
            <code>type</code>, never <code>"trade"</code>; <strong>trade messages</strong> have no <code>type</code>, or <code>{'"type":"trade"'}</code>{' '}
            (basic.pumpfun messages since message schema version 2).
          </p>
          <h3>1. Authenticate</h3>
          <p>On connect the server sends a challenge:</p>
          <Json value={'{"type":"challenge","nonce":"<32 base64url characters (24 random bytes)>"}'} />
          <p>Answer with your JWT and either the seed:</p>
          <Json value={'{"jwt":"<user JWT>","nkey":"<user NKey seed, SU…>"}'} />
          <p>or, so the seed never leaves your machine, the Ed25519 signature of the nonce’s UTF-8 bytes by your NKey, base64url-encoded:</p>
          <Json value={'{"jwt":"<user JWT>","sig":"<base64url signature of nonce>"}'} />
          <p>
            Credentials must arrive within 10 seconds (<code>WS_AUTH_TIMEOUT_MS</code>). On success:
          </p>
          <Json value={`{"type":"authenticated","plan":"starter","subjects":${JSON.stringify(PLANS.starter.subjects)},"expires_at_ms":1795248000000}`} />
          <p>
            <code>subjects</code> are those you may subscribe to; <code>expires_at_ms</code> is the JWT’s expiry (ms since the epoch) or <code>null</code>.
          </p>

          <h3>2. Subscribe and unsubscribe</h3>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">WebSocket requests and answers</caption>
              <thead>
                <tr>
                  <th scope="col">You send</th>
                  <th scope="col">The server answers</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <td>
                    <code>{'{"subject":"basic.pumpfun"}'}</code>
                  </td>
                  <td>
                    <code>{'{"type":"subscribed","subject":"basic.pumpfun","filter":null,"seq":48213}'}</code>, then trade messages of that subject, each
                    starting with its <code>seq</code>
                  </td>
                </tr>
                <tr>
                  <td>
                    <code>{'{"subject":"basic.pumpfun","filter":{"mints":["…"],"accounts":["…"],"types":["CREATE"],"min_sol":0.5}}'}</code>
                  </td>
                  <td>
                    <code>subscribed</code> with the filter; only matching trades follow. Send it again to change the filter in place,{' '}
                    <code>{'"filter":null'}</code> to remove it
                  </td>
                </tr>
                <tr>
                  <td>
                    <code>{'{"subject":"basic.pumpfun","resume_after":48213}'}</code> (every plan)
                  </td>
                  <td>
                    <code>subscribed</code>, every trade after that <code>seq</code> you missed, once and in order, <code>replay_caught_up</code>, then live
                    trades; past the 5-minute window (Pro: the stream’s retention) <code>resume_too_old</code> with <code>oldest_seq</code>
                  </td>
                </tr>
                <tr>
                  <td>
                    <code>{'{"subject":"basic.pumpfun","slots":true}'}</code> (every plan; with <code>filter</code>, <code>resume_after</code> or{' '}
                    <code>replay</code> too)
                  </td>
                  <td>
                    <code>subscribed</code> with <code>{'"slots":true'}</code>; after the trades of each slot you were sent, that slot’s status:{' '}
                    <code>{'{"seq":48230,"subject":"basic.pumpfun","type":"slot","slot":…,"status":"confirmed"|"finalized"|"dead",…}'}</code>. A{' '}
                    <code>dead</code> slot never happened, nor did its trades (<a href={`#${schemaSectionId(SLOTS)}`}>fields</a>). It resumes with the trades:
                    its <code>seq</code> counts for <code>resume_after</code>
                  </td>
                </tr>
                <tr>
                  <td>
                    <code>{'{"unsubscribe":"basic.pumpfun"}'}</code>
                  </td>
                  <td>
                    <code>{'{"type":"unsubscribed","subject":"basic.pumpfun"}'}</code>; no more messages of it
                  </td>
                </tr>
                <tr>
                  <td>
                    <code>{'{"subject":"basic.pumpfun","replay":{"from":"2026-11-21T10:00:00Z"}}'}</code> ({replayPlan?.name ?? 'plans with replay'})
                  </td>
                  <td>
                    <code>{'{"type":"subscribed","subject":"basic.pumpfun","replay":{"from":…,"first_seq":1234}}'}</code>, stored trades,{' '}
                    <code>{'{"type":"replay_caught_up","subject":"basic.pumpfun","seq":5678}'}</code>, then live trades
                  </td>
                </tr>
              </tbody>
            </table>
          </div>
          <p>
            A connection may hold any number of subjects; subscribing again to a subscribed subject answers <code>subscribed</code> and changes nothing (except
            its filter, when you send one). Filters match <code>mints</code> (the trade’s token mints),
            <code> accounts</code> (trader, creator or pool), <code>types</code> (<code>transaction_type</code>) and <code>min_sol</code>
            (the trade’s SOL amount). A subscribed connection gets <code>{'{"type":"heartbeat","slot":…,"seq":…}'}</code> after 5 s without trades, so silence
            means a quiet market, and nothing at all means a dead link: reconnect and resume. A subject outside your plan is refused with{' '}
            <code>subject_not_in_plan</code>, naming the cheapest plan that includes it, and the connection stays open.
          </p>
          <h3>3. Replay ({replayPlan?.name ?? 'plans with replay'})</h3>
          <p>
            <code>from</code> is an ISO-8601 date-time <strong>with a time zone</strong> (<code>Z</code> or <code>±hh:mm</code>) or a<code> TRADES</code> stream
            sequence (a positive integer; the same numbers as native replay). History and the live feed join with no gap and no duplicate.{' '}
            <code>first_seq</code> is <code>null</code> when nothing was stored from that point, and
            <code> replay_caught_up</code> is sent once, with <code>"seq": null</code> when there was nothing to replay. A start before the stream’s retention
            starts at the oldest stored message. A replay replaces a live subscription of the same subject; a plain
            <code> {'{"subject"}'}</code> switches back to live; <code>unsubscribe</code> ends it. Plans without replay get
            <code> replay_not_in_plan</code>.
          </p>
          <h3>4. Control messages</h3>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">WebSocket control messages</caption>
              <thead>
                <tr>
                  <th scope="col">
                    <code>type</code>
                  </th>
                  <th scope="col">Fields</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {WS_CONTROL_MESSAGES.map((m) => (
                  <tr key={m.type}>
                    <td>
                      <code>{m.type}</code>
                    </td>
                    <td>
                      <code>{m.fields}</code>
                    </td>
                    <td>{m.when}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>5. Plan changes on a live connection</h3>
          <p>
            An upgrade sends <code>plan_changed</code>; the new subjects can be subscribed at once on the same socket. A downgrade sends
            <code> plan_changed</code> and, for each subject no longer allowed, <code>unsubscribed</code> with
            <code> "reason":"plan_changed"</code>; the other subjects keep flowing. Connections beyond the new plan’s limit are closed with
            <code> connection_limit</code> (4429). Revoked or expired credentials are closed with <code>revoked</code>/<code>expired</code> (4401).
          </p>
        </section>

        <section id="nats" aria-labelledby="nats-h" className="docs-section">
          <h2 id="nats-h">NATS JetStream</h2>
          <p>
            Connect any NATS client to <code>{endpoints.nats}</code> with your <code>.creds</code> file (JWT + NKey authentication; the server runs in operator
            mode). Trades are on the subjects of the <code>TRADES</code> stream; subscribe with a plain NATS subscription.
          </p>
          <ul>
            <li>
              <strong>Permissions</strong>: your account imports exactly your plan’s subjects and may subscribe to them only; publishing is refused. The server
              enforces this itself.
            </li>
            <li>
              <strong>Connections</strong> are limited per account to your plan’s count (<a href="#subjects">table below</a>).
            </li>
            <li>
              <strong>Plan changes</strong>: the server closes your account’s connections once; clients reconnect with the same credentials and get the new
              plan. If a disconnect is not followed by a reconnect within a few seconds, connect again.
            </li>
          </ul>
          <Json value={`nats sub --creds ./tradewind.creds --server ${endpoints.nats} basic.pumpfun`} />
          <h3>Native replay ({replayPlan?.name ?? 'plans with replay'})</h3>
          <p>
            Read history with a JetStream pull consumer of your own on the <code>TRADES</code> mirror, through the API prefix
            <code> $JS.REPLAY.API</code>. The consumer must be <strong>named after your account public key</strong>(<code>account_public_key</code> of{' '}
            <code>GET /api/nats</code>); any other name is refused. Stream sequences are the same as on WebSocket replay.
          </p>
          <CodeBlock
            label="Native replay (TypeScript, nats.js)"
            language="typescript"
            code={`import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { readFileSync } from 'node:fs';

const nc = await connect({ servers: '${endpoints.nats}', authenticator: credsAuthenticator(readFileSync('./tradewind.creds')) });
const opts = { apiPrefix: '$JS.REPLAY.API', checkAPI: false };
const name = '${endpoints.accountPublicKey ?? '<your account_public_key from GET /api/nats>'}';
await (await jetstreamManager(nc, opts)).consumers.add('TRADES', {
  name, filter_subject: 'basic.pumpfun', deliver_policy: DeliverPolicy.StartTime,
  opt_start_time: '2026-11-21T09:00:00Z', ack_policy: AckPolicy.None, inactive_threshold: 300e9,
});
for await (const m of await (await jetstream(nc, opts).consumers.get('TRADES', name)).consume()) console.log(m.seq, m.string());`}
          />
          <p>When the plan loses replay, the import goes and the consumer is deleted.</p>
        </section>

        <section id="subjects" aria-labelledby="subjects-h" className="docs-section">
          <h2 id="subjects-h">Subjects per plan</h2>
          <div className="table-wrap">
            <table className="docs-plan-table">
              <caption className="sr-only">Which plan includes which subject</caption>
              <thead>
                <tr>
                  <th scope="col">Subject</th>
                  {plans.map((p) => (
                    <th scope="col" key={p.id}>
                      {p.name}
                    </th>
                  ))}
                  <th scope="col">Cheapest plan</th>
                </tr>
              </thead>
              <tbody>
                {DOC_SUBJECTS.map((subject) => (
                  <tr key={subject} data-subject={subject}>
                    <th scope="row">
                      <a href={`#${schemaSectionId(subject)}`}>
                        <code>{subject}</code>
                      </a>
                    </th>
                    {plans.map((p) => {
                      const included = (p.subjects as readonly string[]).includes(subject);
                      return (
                        <td key={p.id} data-plan={p.id} data-included={included}>
                          {included ? <span className="positive">Included</span> : <span className="muted">Not included</span>}
                        </td>
                      );
                    })}
                    <td data-cheapest>{cheapestPlanFor(subject)?.name ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Plan limits</h3>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Limits of each plan</caption>
              <thead>
                <tr>
                  <th scope="col">Limit</th>
                  {plans.map((p) => (
                    <th scope="col" key={p.id}>
                      {p.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th scope="row">Concurrent connections (per transport)</th>
                  {plans.map((p) => (
                    <td key={p.id}>{p.connections}</td>
                  ))}
                </tr>
                <tr>
                  <th scope="row">Control requests per minute</th>
                  {plans.map((p) => (
                    <td key={p.id}>{p.requestsPerMinute.toLocaleString('en-US')}</td>
                  ))}
                </tr>
                <tr>
                  <th scope="row">Replay of history</th>
                  {plans.map((p) => (
                    <td key={p.id}>{p.replay ? 'Yes' : 'No'}</td>
                  ))}
                </tr>
              </tbody>
            </table>
          </div>
        </section>

        <section id="schemas" aria-labelledby="schemas-h" className="docs-section">
          <h2 id="schemas-h">Message schemas</h2>
          <p>
            Each subject’s messages follow a JSON Schema (draft 2020-12) in the repository, <code>packages/contracts/schemas/</code>; the tables below are
            generated from those files. Integers beyond 2<sup>53</sup> (u64, i64) are decimal strings, public keys base58. Fields marked “when…” are required
            only for some <code>transaction_type</code> values.
          </p>
          {SCHEMA_SUBJECTS.map((subject) => {
            const schema = MESSAGE_SCHEMAS[subject];
            if (!schema) return null;
            const conditions = conditionalRequirements(schema);
            const alternatives = alternativeRules(schema);
            return (
              <section
                key={subject}
                id={schemaSectionId(subject)}
                aria-labelledby={`${schemaSectionId(subject)}-h`}
                className="docs-subsection"
                data-subject={subject}
              >
                <h3 id={`${schemaSectionId(subject)}-h`}>
                  <code>{subject}</code>
                </h3>
                <p className="muted">
                  Plans: {planList(subject)}. Schema file: <code>packages/contracts/schemas/{subject}.schema.json</code>
                </p>
                {schema.description && <p>{schema.description}</p>}
                {conditions.length > 0 && (
                  <>
                    <h4>Required by transaction type</h4>
                    <ul className="docs-conditions">
                      {conditions.map((c) => (
                        <li key={c.condition}>
                          <code>{c.condition}</code>:{' '}
                          {c.required.map((r, i) => (
                            <span key={r}>
                              {i > 0 && ', '}
                              <code>{r}</code>
                            </span>
                          ))}
                          {c.forbidden.length > 0 && (
                            <>
                              {' '}
                              (without{' '}
                              {c.forbidden.map((f) => (
                                <code key={f}>{f}</code>
                              ))}
                              )
                            </>
                          )}
                        </li>
                      ))}
                    </ul>
                  </>
                )}
                {alternatives.length > 0 && (
                  <>
                    <h4>Alternative fields</h4>
                    <ul className="docs-alternatives">
                      {alternatives.map((r) => (
                        <li key={`${r.condition}:${r.text}`}>
                          {r.condition ? (
                            <>
                              <code>{r.condition}</code>:{' '}
                            </>
                          ) : null}
                          {r.text}.
                        </li>
                      ))}
                    </ul>
                  </>
                )}
                <h4>Fields</h4>
                <SchemaTable rows={schemaRows(schema)} caption={`Fields of ${subject} messages`} />
              </section>
            );
          })}
        </section>

        <section id="errors" aria-labelledby="errors-h" className="docs-section">
          <h2 id="errors-h">Errors and limits</h2>
          <h3>WebSocket errors</h3>
          <p>
            Every refusal is <code>{'{"type":"error","code":"<code>","message":"<reason>"}'}</code>. When the connection does not stay open, a close frame
            follows with the close code shown and the error code as the reason.
          </p>
          <div className="table-wrap">
            <table className="docs-errors-table">
              <caption className="sr-only">WebSocket error codes and close codes</caption>
              <thead>
                <tr>
                  <th scope="col">Code</th>
                  <th scope="col">When</th>
                  <th scope="col">Close</th>
                </tr>
              </thead>
              <tbody>
                {WS_ERROR_CODES.map((e) => (
                  // A code can have two rows with the same close code (unavailable: Redis, replay); `when` tells them apart.
                  <tr key={`${e.code}-${e.when}`} data-code={e.code}>
                    <td>
                      <code>{e.code}</code>
                    </td>
                    <td>
                      <Md text={e.when} />
                    </td>
                    <td>{e.closeNote ?? (e.close === null ? 'stays open' : <code>{e.close}</code>)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Other close codes</h3>
          <ul>
            {WS_OTHER_CLOSE_CODES.map((c) => (
              <li key={c.close}>
                <code>{c.close}</code>
                {c.reason && (
                  <>
                    {' '}
                    <code>{c.reason}</code>
                  </>
                )}
                : <Md text={c.when} />
              </li>
            ))}
          </ul>
          <h3>WebSocket limits</h3>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">WebSocket limits</caption>
              <thead>
                <tr>
                  <th scope="col">Limit</th>
                  <th scope="col">Value</th>
                  <th scope="col">Config key</th>
                  <th scope="col">Over it</th>
                </tr>
              </thead>
              <tbody>
                {WS_LIMITS.map((l) => (
                  <tr key={l.limit}>
                    <td>{l.limit}</td>
                    <td>{limitValue(l, plans)}</td>
                    <td>{l.configKey ? <code>{l.configKey}</code> : 'plans catalogue'}</td>
                    <td>
                      <Md text={l.over} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="muted">
            Connections and the request budget are counted per customer account across every server, so all your credentials share your plan’s limits.
          </p>
          <h3>NATS errors</h3>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">NATS permission and connection errors</caption>
              <thead>
                <tr>
                  <th scope="col">Error</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {NATS_ERRORS.map((e) => (
                  <tr key={e.error}>
                    <td>
                      <code>{e.error}</code>
                    </td>
                    <td>{e.when}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>
            HTTP API errors (<code>/api/nats</code>)
          </h3>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">HTTP errors of the credentials API</caption>
              <thead>
                <tr>
                  <th scope="col">Status</th>
                  <th scope="col">Body</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {HTTP_ERRORS.map((e) => (
                  <tr key={e.status}>
                    <td>{e.status}</td>
                    <td>
                      <code>{e.body}</code>
                    </td>
                    <td>
                      <Md text={e.when} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>

        <section id="http-api" aria-labelledby="http-api-h" className="docs-section">
          <h2 id="http-api-h">HTTP API</h2>
          <HttpApiReference />
        </section>

        <section id="samples" aria-labelledby="samples-h" className="docs-section">
          <h2 id="samples-h">Code samples</h2>
          <p>
            These are the starter templates’ own files. Each reads your credentials from <code>TRADEWIND_CREDS</code> (a <code>.creds</code>
            file or the JSON of <code>GET /api/nats</code>), prints one trade per line on stdout and status on stderr.
          </p>
          {CODE_SAMPLES.map((s) => {
            const template = STARTER_TEMPLATES.find((t) => t.files.includes(s.file));
            const urlVar = s.language === 'typescript' ? `TRADEWIND_NATS_URL=${endpoints.nats}` : `TRADEWIND_WS_URL=${endpoints.ws}`;
            return (
              <section key={s.id} id={s.id} aria-labelledby={`${s.id}-h`} className="docs-subsection">
                <h3 id={`${s.id}-h`}>{s.title}</h3>
                {template && <CodeBlock label={`Run (${template.title})`} language="shell" code={`export ${urlVar}\n${template.run}`} />}
                <CodeBlock label={s.file} language={s.language} code={s.code} />
              </section>
            );
          })}
        </section>

        <section id="templates" aria-labelledby="templates-h" className="docs-section">
          <h2 id="templates-h">Starter templates</h2>
          <p>
            Each template runs against the local stack (<code>npm start</code>) or your account. Download the files, or find them in the repository’s{' '}
            <code>examples/</code> folder
            {SITE.repositoryUrl ? (
              <>
                {' '}
                (<a href={SITE.repositoryUrl}>repository</a>)
              </>
            ) : null}
            .
          </p>
          <div className="grid grid-3">
            {STARTER_TEMPLATES.map((t) => (
              <article key={t.id} className="card docs-template" aria-labelledby={`template-${t.id}`}>
                <h3 id={`template-${t.id}`}>{t.title}</h3>
                <p>
                  <span className="badge">{t.transport}</span>
                </p>
                <p>{t.summary}</p>
                <ul className="docs-template-files">
                  {t.files.map((f) => (
                    <li key={f}>
                      <a href={templateFileUrl(f)} download>
                        {f.replace(/^examples\//, '')}
                      </a>
                    </li>
                  ))}
                </ul>
              </article>
            ))}
          </div>
        </section>
      </div>
    </div>
  );
}
