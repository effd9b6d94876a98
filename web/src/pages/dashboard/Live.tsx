import { useCallback, useEffect, useId, useMemo, useReducer, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { TradeFilter, TradeMessage } from '@tradewind/client';
import { PLANS, isPlanId } from '@tradewind/contracts/plans';
import { isTradeSubject, type TradeSubject } from '@tradewind/contracts/subjects';
import type { WsConnectionHolder } from '@tradewind/contracts/ws-errors';
import { Seo } from '../../seo';
import { copyFailedText } from '../../lib/clipboard';
import { formatAge } from '../../lib/format';
import type { Credentials } from '../../lib/credentials';
import { LiveConnection } from '../../lib/live-connection';
import {
  EMPTY_FILTER_FORM,
  INITIAL_LIVE_MEMORY,
  LIVE_MAX_ROWS,
  LIVE_TRANSACTION_TYPES,
  SOLANA_EXPLORER_TX_URL,
  SPARKLINE_SECONDS,
  TradeRate,
  buildFilter,
  describeFilter,
  describeUserAgent,
  formatClock,
  formatPrice,
  formatSol,
  natsCode,
  nextLiveStatus,
  shortAddress,
  sparklinePoints,
  subjectOptions,
  tradeRow,
  websocketCode,
  type FilterForm,
  type FilterProblem,
  type LiveInput,
  type LiveMemory,
  type LiveStatus,
  type TradeRow,
} from '../../lib/live-stream';
import { useCopy } from '../../components/dashboard/SecretField';
import { usePanelCredentials } from '../../components/dashboard/usePanelCredentials';
import { CredentialsLoadError, CredentialsRefreshError } from './CredentialsError';
import { useDashboardContext } from './DashboardLayout';
import './dashboard.css';
import './live.css';

/** How often arrived trades are drawn (ms): a busy subject re-renders the table a few times a second, not per trade. */
const FLUSH_MS = 250;
/** Size of the sparkline's drawing box (SVG user units; it scales to the card's width). */
const SPARK_WIDTH = 600;
const SPARK_HEIGHT = 64;

/** The first subject of the plan (the picker's default). */
function firstSubject(credentials: Credentials): TradeSubject {
  return (credentials.subjects.find(isTradeSubject) as TradeSubject | undefined) ?? 'basic.pumpfun';
}

/** /dashboard/live: the customer's own stream in the browser, over the real WebSocket endpoint, with their own credentials. */
export default function Live() {
  const { planDataRefreshKey } = useDashboardContext();
  const { data: credentials, loading, error, refresh } = usePanelCredentials(planDataRefreshKey);
  return (
    <div className="dash-page live-page">
      <Seo title="Live" description="Your own Tradewind stream in the browser: subjects, filters, trades per second and code." path="/dashboard/live" noindex />
      <header className="dash-page-head">
        <h1>Live</h1>
        <p className="muted">Your stream as your programs receive it: pick a subject and a filter, watch the trades, then copy the code.</p>
      </header>
      {loading && !credentials ? (
        <section className="card dash-state" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" /> Loading your credentials…
        </section>
      ) : error && !credentials ? (
        <CredentialsLoadError message={error} onRetry={() => void refresh()} />
      ) : credentials ? (
        <>
          {error ? <CredentialsRefreshError message={error} onRetry={() => void refresh()} /> : null}
          <LiveStream credentials={credentials} onNewCredentials={refresh} />
        </>
      ) : null}
    </div>
  );
}

function LiveStream({ credentials, onNewCredentials }: { credentials: Credentials; onNewCredentials: () => Promise<void> }) {
  const [subject, setSubject] = useState<TradeSubject>(() => firstSubject(credentials));
  const [draft, setDraft] = useState<FilterForm>(EMPTY_FILTER_FORM);
  const [applied, setApplied] = useState<FilterForm>(EMPTY_FILTER_FORM);
  const [problems, setProblems] = useState<FilterProblem[]>([]);
  const [rows, setRows] = useState<TradeRow[]>([]);
  const [selectedSeq, setSelectedSeq] = useState<number | null>(null);
  const [gap, setGap] = useState<string | null>(null);
  const [memory, dispatch] = useReducer((m: LiveMemory, input: LiveInput) => nextLiveStatus(m, input), INITIAL_LIVE_MEMORY);
  const [now, setNow] = useState(() => Date.now());
  const [renewing, setRenewing] = useState(false);
  const connection = useRef<LiveConnection | null>(null);
  const pending = useRef<TradeRow[]>([]);
  const rate = useMemo(() => new TradeRate(SPARKLINE_SECONDS), []);

  const appliedFilter: TradeFilter | null = useMemo(() => {
    const built = buildFilter(subject, applied);
    return built.ok ? built.filter : null;
  }, [subject, applied]);
  // What the connection is told when it (re)starts; changes after that go through setSubject / setFilter.
  const wanted = useRef({ subject, filter: appliedFilter, form: applied });
  wanted.current = { subject, filter: appliedFilter, form: applied };

  /** Draws the trades that arrived since the last time (newest first, at most LIVE_MAX_ROWS). */
  const flushPending = useCallback(() => {
    const arrived = pending.current;
    if (arrived.length === 0) return;
    pending.current = [];
    setRows((old) => [...arrived.reverse(), ...old].slice(0, LIVE_MAX_ROWS));
  }, []);

  const clearTrades = useCallback(() => {
    pending.current = [];
    rate.clear();
    setRows([]);
    setSelectedSeq(null);
  }, [rate]);

  // One connection per credentials load (a rotation or plan change fetches them again); closed when the page unmounts.
  useEffect(() => {
    // New credentials after a downgrade may not include the subject on screen: start on the plan's first one.
    let start: { subject: TradeSubject; filter: TradeFilter | null } = wanted.current;
    if (!credentials.subjects.includes(start.subject)) {
      const subject = firstSubject(credentials);
      const built = buildFilter(subject, wanted.current.form);
      start = { subject, filter: built.ok ? built.filter : null };
      setSubject(subject);
    }
    const conn = new LiveConnection({
      url: credentials.ws_connection,
      jwt: credentials.user_jwt,
      seed: credentials.user_nkey_seed,
      subject: start.subject,
      filter: start.filter,
      onTrade: (trade: TradeMessage) => {
        const received = Date.now();
        const row = tradeRow(trade as unknown as Record<string, unknown>, received);
        if (!row) return;
        rate.add(received);
        pending.current.push(row);
      },
      onInput: (input) => {
        dispatch(input);
        if (input.type === 'gap') {
          setGap(
            input.reason === 'resume_too_old'
              ? `The pause outlasted the resume window: trades after #${input.afterSeq}${input.oldestSeq ? ` and before #${input.oldestSeq}` : ''} could not be sent. Live trades follow.`
              : `The server could not resume after #${input.afterSeq}. Live trades follow.`,
          );
        }
      },
    });
    connection.current = conn;
    conn.start();
    const flush = setInterval(flushPending, FLUSH_MS);
    return () => {
      clearInterval(flush);
      conn.close();
      connection.current = null;
    };
  }, [credentials, rate, flushPending]);

  // The sparkline moves on every second, trades or not.
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, []);

  const status = memory.status;
  const paused = memory.paused;
  const plan = isPlanId(credentials.plan) ? PLANS[credentials.plan] : PLANS.starter;
  const connections = credentials.max_connections;

  const chooseSubject = (next: TradeSubject) => {
    if (next === subject) return;
    const built = buildFilter(next, applied);
    const filter = built.ok ? built.filter : null;
    setSubject(next);
    setGap(null);
    clearTrades();
    connection.current?.setSubject(next, filter);
  };

  const applyFilter = (event: FormEvent) => {
    event.preventDefault();
    const built = buildFilter(subject, draft);
    if (!built.ok) {
      setProblems(built.problems);
      return;
    }
    setProblems([]);
    setApplied(draft);
    setGap(null);
    clearTrades();
    connection.current?.setFilter(built.filter);
  };

  const clearFilter = () => {
    setDraft(EMPTY_FILTER_FORM);
    setProblems([]);
    if (appliedFilter === null) return;
    setApplied(EMPTY_FILTER_FORM);
    clearTrades();
    connection.current?.setFilter(null);
  };

  const reconnect = () => {
    setGap(null);
    connection.current?.restart();
  };

  // The credentials load again; their arrival opens a new connection (the effect above).
  const renewCredentials = async () => {
    setRenewing(true);
    try {
      await onNewCredentials();
    } finally {
      setRenewing(false);
    }
  };

  const selected = rows.find((r) => r.seq === selectedSeq) ?? null;
  const replayed = rows.some((r) => r.replayed);
  const subscription = { subject, filter: appliedFilter };

  return (
    <>
      <p className="alert dash-notice live-slot-note" data-testid="live-slot-note">
        This preview uses 1 of your {connections} WebSocket connection{connections === 1 ? '' : 's'} while it is open
        {connections === 1 ? ', so your other WebSocket clients cannot connect meanwhile' : ''}. Leaving the page closes it; pausing does not.
      </p>
      <LiveStatusPanel
        status={status}
        plan={plan.name}
        connections={connections}
        subject={subject}
        onRetryNow={reconnect}
        onRenew={() => void renewCredentials()}
        renewing={renewing}
        wsUrl={credentials.ws_connection}
        now={now}
      />
      {gap ? (
        <p className="alert alert-warning dash-notice" role="status">
          {gap}
        </p>
      ) : null}
      <div className="live-grid">
        <section className="card live-controls" aria-labelledby="live-controls-title">
          <h2 id="live-controls-title">Subscription</h2>
          <SubjectPicker allowed={credentials.subjects} subject={subject} onChoose={chooseSubject} />
          <FilterFields subject={subject} draft={draft} problems={problems} onChange={setDraft} onApply={applyFilter} onClear={clearFilter} />
          <p className="muted live-applied" data-testid="live-applied-filter">
            Streaming <code>{subject}</code>, {describeFilter(appliedFilter)} (applied by the server).
          </p>
        </section>
        <section className="card live-rate" aria-labelledby="live-rate-title">
          <div className="live-rate-head">
            <h2 id="live-rate-title">Trades per second</h2>
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => {
                if (paused) {
                  connection.current?.resume();
                } else {
                  // Everything handed over is on screen before pausing: the resume starts after the last trade shown.
                  flushPending();
                  connection.current?.pause();
                }
              }}
              disabled={!paused && status.kind !== 'live'}
              data-testid="live-pause"
            >
              {paused ? 'Resume' : 'Pause'}
            </button>
          </div>
          <Sparkline series={rate.series(now)} />
          <p className="muted live-rate-note">
            Last {SPARKLINE_SECONDS} s, by arrival in this browser. {paused ? 'Paused: trades wait on the server and arrive, in order, when you resume.' : ''}
          </p>
        </section>
      </div>
      <TradesTable rows={rows} selectedSeq={selectedSeq} onSelect={setSelectedSeq} replayed={replayed} live={status.kind === 'live'} />
      <RawTrade row={selected} />
      <CopyAsCode subscription={subscription} wsUrl={credentials.ws_connection} natsUrl={credentials.nats_connection} />
    </>
  );
}

/** The state line: connecting, live, paused, or the failure with what happens next and what the customer can do. */
function LiveStatusPanel({
  status,
  plan,
  connections,
  subject,
  onRetryNow,
  onRenew,
  renewing,
  wsUrl,
  now,
}: {
  status: LiveStatus;
  plan: string;
  connections: number;
  subject: string;
  onRetryNow: () => void;
  onRenew: () => void;
  renewing: boolean;
  wsUrl: string;
  now: number;
}) {
  // The wait counts down from when this state was reached (`now` ticks every second).
  const [since, setSince] = useState(now);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new status object restarts the count, a tick of `now` must not
  useEffect(() => setSince(Date.now()), [status]);
  const retryText = (retryInMs: number) => {
    const left = Math.ceil((retryInMs - Math.max(0, now - since)) / 1000);
    return left > 0 ? `tries again in ${left} s` : 'is trying again';
  };
  switch (status.kind) {
    case 'connecting':
      return (
        <p className="live-status" role="status" aria-live="polite" data-state="connecting">
          <span className="spinner" aria-hidden="true" /> Connecting to {wsUrl}…
        </p>
      );
    case 'live':
      return (
        <p className="live-status" role="status" aria-live="polite" data-state="live">
          <span className="live-dot" aria-hidden="true" /> Live: streaming <code>{subject}</code>
        </p>
      );
    case 'paused':
      return (
        <p className="live-status" role="status" aria-live="polite" data-state="paused">
          <span className="live-dot live-dot-paused" aria-hidden="true" /> Paused. Nothing is lost: Resume sends every trade since the last one shown.
        </p>
      );
    case 'closed':
      return (
        <p className="live-status" role="status" data-state="closed">
          Disconnected.{' '}
          <button type="button" className="btn btn-secondary btn-sm" onClick={onRetryNow}>
            Connect
          </button>
        </p>
      );
    case 'limit':
      return (
        <section className="alert alert-warning live-problem" role="alert" data-state="limit" aria-labelledby="live-limit-title">
          <h2 id="live-limit-title" className="dash-state-title">
            All your WebSocket connections are in use
          </h2>
          <p>
            Your {plan} plan allows {connections} WebSocket connection{connections === 1 ? '' : 's'} at a time, and{' '}
            {status.holders.length === 1 ? 'this one holds it' : `these ${status.holders.length} hold them`}:
          </p>
          {status.holders.length > 0 ? (
            <ul className="live-holders" data-testid="live-holders">
              {status.holders.map((h) => (
                <Holder key={`${h.connected_at}-${h.address}-${h.user_agent ?? ''}`} holder={h} now={now} />
              ))}
            </ul>
          ) : (
            <p>The server did not say which (a client of an older server version).</p>
          )}
          <p>
            Close {status.holders.length > 1 ? 'one of them' : 'it'}, or <Link to="/dashboard/plan">upgrade your plan</Link> for more connections. This page{' '}
            {retryText(status.retryInMs)} and connects as soon as a connection is free.{' '}
            <button type="button" className="btn btn-secondary btn-sm" onClick={onRetryNow}>
              Try again now
            </button>
          </p>
          <p className="muted live-problem-detail">Server: {status.message}</p>
        </section>
      );
    case 'credentials':
      return (
        <section className="alert alert-error live-problem" role="alert" data-state="credentials" aria-labelledby="live-creds-title">
          <h2 id="live-creds-title" className="dash-state-title">
            {status.code === 'revoked'
              ? 'These credentials were rotated or revoked'
              : status.code === 'expired'
                ? 'These credentials have expired'
                : 'The stream refused these credentials'}
          </h2>
          <p>
            {status.code === 'revoked'
              ? 'New credentials were issued (Settings → Security → Rotate), which closes every connection of the old ones.'
              : 'The stream will not take them again.'}{' '}
            Fetch your current credentials to reconnect; update your programs with them too (Download .creds on the Dashboard).
          </p>
          <p>
            <button type="button" className="btn btn-primary" onClick={onRenew} disabled={renewing}>
              {renewing ? 'Fetching…' : 'Fetch new credentials and reconnect'}
            </button>
          </p>
          <p className="muted live-problem-detail">
            Server: {status.message} ({status.code})
          </p>
        </section>
      );
    case 'unreachable':
      return (
        <section className="alert alert-warning live-problem" role="alert" data-state="unreachable" aria-labelledby="live-unreachable-title">
          <h2 id="live-unreachable-title" className="dash-state-title">
            {status.closeCode === 4503 ? 'The stream cannot log you in right now' : 'The stream cannot be reached'}
          </h2>
          <p>
            {status.message ?? `The connection to ${wsUrl} closed (code ${status.closeCode}).`} This page {retryText(status.retryInMs)} (attempt{' '}
            {status.attempt}, the wait doubling up to 30 s). Trades missed meanwhile are resumed on reconnect.{' '}
            <button type="button" className="btn btn-secondary btn-sm" onClick={onRetryNow}>
              Try again now
            </button>
          </p>
        </section>
      );
    case 'refused':
      return (
        <section className="alert alert-error live-problem" role="alert" data-state="refused" aria-labelledby="live-refused-title">
          <h2 id="live-refused-title" className="dash-state-title">
            {status.code === 'subject_not_in_plan' || status.code === 'plan_changed' ? 'This subject is not in your plan' : 'The subscription was refused'}
          </h2>
          <p>{status.message}</p>
          {status.code === 'subject_not_in_plan' || status.code === 'plan_changed' ? (
            <p>
              <Link to="/dashboard/plan">See plans and upgrade</Link>, or pick one of your plan’s subjects.
            </p>
          ) : null}
        </section>
      );
    case 'failed':
      return (
        <section className="alert alert-error live-problem" role="alert" data-state="failed">
          <p>
            The stream stopped: {status.message}{' '}
            <button type="button" className="btn btn-secondary btn-sm" onClick={onRetryNow}>
              Reconnect
            </button>
          </p>
        </section>
      );
  }
}

/** One connection that holds a slot: since when, from where, with what. */
function Holder({ holder, now }: { holder: WsConnectionHolder; now: number }) {
  const since = Date.parse(holder.connected_at);
  return (
    <li className="live-holder">
      <span>
        Connected {Number.isNaN(since) ? holder.connected_at : `at ${formatClock(since)} UTC (${formatAge(Math.max(0, now - since))} ago)`} from{' '}
        <code>{holder.address}</code>
      </span>
      <span>
        {describeUserAgent(holder.user_agent)}
        {holder.origin ? (
          <>
            {' '}
            on <code>{holder.origin}</code>
          </>
        ) : null}
      </span>
      {holder.user_agent && describeUserAgent(holder.user_agent) !== holder.user_agent ? <code className="live-holder-agent">{holder.user_agent}</code> : null}
    </li>
  );
}

function SubjectPicker({ allowed, subject, onChoose }: { allowed: readonly string[]; subject: TradeSubject; onChoose: (s: TradeSubject) => void }) {
  const name = useId();
  return (
    <fieldset className="live-subjects">
      <legend>Subject</legend>
      <ul>
        {subjectOptions(allowed).map((o) => (
          <li key={o.subject}>
            <label className={`live-subject${o.allowed ? '' : ' live-subject-locked'}`}>
              <input type="radio" name={name} value={o.subject} checked={subject === o.subject} disabled={!o.allowed} onChange={() => onChoose(o.subject)} />
              <code>{o.subject}</code>
              {o.allowed ? null : <span className="muted live-subject-plan">{o.includedIn} plan and above</span>}
            </label>
          </li>
        ))}
      </ul>
      {allowed.length < 4 ? (
        <p className="muted live-hint">
          <Link to="/dashboard/plan">Upgrade</Link> for the locked subjects.
        </p>
      ) : null}
    </fieldset>
  );
}

function FilterFields({
  subject,
  draft,
  problems,
  onChange,
  onApply,
  onClear,
}: {
  subject: TradeSubject;
  draft: FilterForm;
  problems: readonly FilterProblem[];
  onChange: (f: FilterForm) => void;
  onApply: (e: FormEvent) => void;
  onClear: () => void;
}) {
  const id = useId();
  const problem = (field: FilterProblem['field']) => problems.find((p) => p.field === field)?.message;
  const errorProps = (field: FilterProblem['field']) =>
    problem(field) ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-${field}-error` } : { 'aria-describedby': `${id}-${field}-hint` };
  return (
    <form className="live-filter" onSubmit={onApply} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Filter (server side)</h3>
      <fieldset className="live-types">
        <legend>Transaction types</legend>
        <div className="live-type-list">
          {LIVE_TRANSACTION_TYPES[subject].map((t) => (
            <label key={t} className="live-type">
              <input
                type="checkbox"
                checked={draft.types.includes(t)}
                onChange={(e) => onChange({ ...draft, types: e.target.checked ? [...draft.types, t] : draft.types.filter((x) => x !== t) })}
              />
              {t}
            </label>
          ))}
        </div>
        <p className="muted live-hint">None ticked: every type.</p>
      </fieldset>
      <AddressListField
        id={`${id}-mints`}
        label="Token mints"
        hint="One address per line (or separated by commas); a trade matches when it touches any."
        value={draft.mints}
        onChange={(mints) => onChange({ ...draft, mints })}
        error={problem('mints')}
      />
      <AddressListField
        id={`${id}-accounts`}
        label="Accounts (trader, creator or pool)"
        hint="Wallets or pools; a trade matches when it names any."
        value={draft.accounts}
        onChange={(accounts) => onChange({ ...draft, accounts })}
        error={problem('accounts')}
      />
      <div className="dash-form-field">
        <label htmlFor={`${id}-minSol`}>Minimum SOL</label>
        <input
          id={`${id}-minSol`}
          inputMode="decimal"
          autoComplete="off"
          value={draft.minSol}
          onChange={(e) => onChange({ ...draft, minSol: e.target.value })}
          {...errorProps('minSol')}
        />
        <p id={`${id}-minSol-hint`} className="muted live-hint">
          Trades moving at least this much SOL (up to 9 decimals); empty for any.
        </p>
        <FieldError id={`${id}-minSol-error`} message={problem('minSol')} />
      </div>
      <div className="dash-form-actions">
        <button type="submit" className="btn btn-primary">
          Apply filter
        </button>
        <button type="button" className="btn btn-secondary" onClick={onClear}>
          Clear filter
        </button>
      </div>
    </form>
  );
}

/**
 * A textarea of base58 addresses with its hint, and its error when the filter check failed: `id` names the
 * field, `${id}-hint` and `${id}-error` its hint and error (aria-describedby points at the one showing).
 */
function AddressListField({
  id,
  label,
  hint,
  value,
  onChange,
  error,
}: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
}) {
  return (
    <div className="dash-form-field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={2}
        spellCheck={false}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        {...(error ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : { 'aria-describedby': `${id}-hint` })}
      />
      <p id={`${id}-hint`} className="muted live-hint">
        {hint}
      </p>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/** The message under a form field that failed its check (announced as it appears). */
function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <p id={id} className="live-field-error" role="alert">
      {message}
    </p>
  ) : null;
}

function Sparkline({ series }: { series: readonly number[] }) {
  const max = Math.max(0, ...series);
  const last = series.at(-2) ?? 0; // the last complete second
  const total = series.reduce((a, b) => a + b, 0);
  const label = `Trades per second over the last ${series.length} seconds: ${total} in all, at most ${max} in one second, ${last} in the last full second.`;
  return (
    <figure className="live-spark">
      <svg viewBox={`0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={label} className="live-spark-svg">
        <polyline
          points={sparklinePoints(series, SPARK_WIDTH, SPARK_HEIGHT)}
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          vectorEffect="non-scaling-stroke"
        />
      </svg>
      <figcaption className="live-spark-figures">
        <span>
          <strong data-testid="live-rate-now">{last}</strong> /s now
        </span>
        <span>
          <strong>{max}</strong> /s peak
        </span>
        <span>
          <strong>{total}</strong> in {series.length} s
        </span>
      </figcaption>
    </figure>
  );
}

function TradesTable({
  rows,
  selectedSeq,
  onSelect,
  replayed,
  live,
}: {
  rows: readonly TradeRow[];
  selectedSeq: number | null;
  onSelect: (seq: number | null) => void;
  replayed: boolean;
  live: boolean;
}) {
  return (
    <section className="card live-trades" aria-labelledby="live-trades-title">
      <h2 id="live-trades-title">Latest trades</h2>
      <p className="muted live-hint">
        The newest {LIVE_MAX_ROWS} trades, newest first. Select a trade’s number for its JSON; the signature opens the transaction on Solscan.
        {replayed ? ' Replayed mainnet data: this deployment streams recorded real mainnet transactions, marked "replayed".' : ''}
      </p>
      {rows.length === 0 ? (
        <p className="live-empty" role="status">
          {live ? 'Waiting for the next trade of this subscription…' : 'No trades yet.'}
        </p>
      ) : (
        <div className="live-table-wrap">
          <table className="live-table">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Time (UTC)</th>
                <th scope="col">Kind</th>
                <th scope="col">Token</th>
                <th scope="col" className="live-num">
                  SOL
                </th>
                <th scope="col" className="live-num">
                  Price (SOL)
                </th>
                <th scope="col">Trader</th>
                <th scope="col">Transaction</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.seq} data-seq={r.seq} data-selected={r.seq === selectedSeq ? 'true' : undefined}>
                  <td>
                    <button
                      type="button"
                      className="live-seq"
                      aria-pressed={r.seq === selectedSeq}
                      aria-label={`Trade ${r.seq}: show its JSON`}
                      onClick={() => onSelect(r.seq === selectedSeq ? null : r.seq)}
                    >
                      {r.seq}
                    </button>
                  </td>
                  <td data-label="Time (UTC)">{formatClock(r.receivedAtMs)}</td>
                  <td data-label="Kind" data-testid="live-kind">
                    <span className={`live-kind live-kind-${r.kind.toLowerCase()}`}>{r.kind}</span>
                  </td>
                  <td data-label="Token">
                    {r.symbol ? <strong className="live-symbol">{r.symbol}</strong> : null}{' '}
                    {r.mint ? (
                      <code title={r.mint} className="muted">
                        {shortAddress(r.mint)}
                      </code>
                    ) : r.symbol ? null : (
                      '—'
                    )}
                  </td>
                  <td data-label="SOL" className="live-num">
                    {formatSol(r.sol)}
                  </td>
                  <td data-label="Price (SOL)" className="live-num">
                    {formatPrice(r.priceSol)}
                  </td>
                  <td data-label="Trader">{r.trader ? <code title={r.trader}>{shortAddress(r.trader)}</code> : '—'}</td>
                  <td data-label="Transaction">
                    {r.signature ? (
                      <a href={`${SOLANA_EXPLORER_TX_URL}${r.signature}`} target="_blank" rel="noopener noreferrer" title={r.signature}>
                        {shortAddress(r.signature)}
                        <span className="sr-only"> on Solscan (opens in a new tab)</span>
                      </a>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function RawTrade({ row }: { row: TradeRow | null }) {
  const { copied, failed, copy } = useCopy();
  const text = useMemo(() => (row ? JSON.stringify(row.trade, null, 2) : ''), [row]);
  return (
    <section className="card live-raw" aria-labelledby="live-raw-title">
      <div className="dash-snippet-head">
        <h2 id="live-raw-title">{row ? `Trade #${row.seq} as received` : 'Trade JSON'}</h2>
        {row ? (
          <button type="button" className="btn btn-ghost btn-sm" aria-label={copied ? 'JSON copied' : 'Copy JSON'} onClick={() => void copy(text)}>
            {copied ? 'Copied' : 'Copy'}
          </button>
        ) : null}
      </div>
      {row ? (
        <pre className="live-raw-json" data-testid="live-raw-json">
          <code>{text}</code>
        </pre>
      ) : (
        <p className="muted">Select a trade’s number in the table to see the message exactly as your programs receive it.</p>
      )}
      {failed ? (
        <p role="alert" className="alert alert-error">
          {copyFailedText('code')}
        </p>
      ) : null}
    </section>
  );
}

const TRANSPORTS = [
  { id: 'websocket', label: 'WebSocket' },
  { id: 'nats', label: 'NATS' },
] as const;

function CopyAsCode({ subscription, wsUrl, natsUrl }: { subscription: { subject: TradeSubject; filter: TradeFilter | null }; wsUrl: string; natsUrl: string }) {
  const [transport, setTransport] = useState<(typeof TRANSPORTS)[number]['id']>('websocket');
  const name = useId();
  const { copied, failed, copy } = useCopy();
  const code = transport === 'websocket' ? websocketCode(subscription, wsUrl) : natsCode(subscription, natsUrl);
  return (
    <section className="card live-code" aria-labelledby="live-code-title">
      <div className="dash-snippet-head">
        <h2 id="live-code-title">Copy as code</h2>
        <button type="button" className="btn btn-secondary btn-sm" aria-label={copied ? 'Code copied' : 'Copy code'} onClick={() => void copy(code)}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p className="muted live-hint">
        Exactly the subscription on screen, in TypeScript for Node.js: @tradewind/client over WebSocket, nats.js over native NATS. The code reads your
        downloaded .creds file and holds no credentials, so it is safe to share.
      </p>
      <fieldset className="dash-transport">
        <legend className="sr-only">Transport</legend>
        <div className="dash-segmented">
          {TRANSPORTS.map((t) => (
            <label key={t.id} className="dash-segment">
              <input type="radio" name={name} value={t.id} checked={transport === t.id} onChange={() => setTransport(t.id)} />
              <span>{t.label}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="dash-snippet">
        <pre className="live-code-text" data-testid="live-code">
          <code>{code}</code>
        </pre>
      </div>
      {failed ? (
        <p role="alert" className="alert alert-error">
          {copyFailedText('code')}
        </p>
      ) : null}
    </section>
  );
}
