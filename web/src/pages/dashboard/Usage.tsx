import { Link } from 'react-router';
import { PLANS, isPlanId } from '@tradewind/contracts/plans';
import { Seo } from '../../seo';
import { SeriesChart } from '../../components/charts/SeriesChart';
import {
  TRANSPORT_LABEL,
  USAGE_TRANSPORTS,
  dayLabel,
  dayLabelLong,
  formatBytes,
  formatBytesShort,
  formatCount,
  formatCountShort,
  formatDuration,
  hasTraffic,
  inUseText,
  lagNote,
  type InUse,
  type UsageReport,
} from '../../lib/usage';
import { useUsageReport } from '../../lib/usage-refresh';
import { useDashboardContext } from './DashboardLayout';
import './dashboard.css';
import './usage.css';

/** The time of an ISO 8601 instant in UTC, "HH:MM:SS UTC" (the raw text when it does not parse). */
function utcTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** One meter: the sentence, and a `<meter>` when the server could count it. */
function Meter({ id, m, what }: { id: string; m: InUse; what: string }) {
  const full = m.in_use !== null && m.in_use >= m.limit;
  return (
    <li className="usage-meter" data-testid={id}>
      <span id={`${id}-text`} className="usage-meter-text">
        {inUseText(m, what)}
      </span>
      {m.in_use === null ? null : (
        <meter
          aria-labelledby={`${id}-text`}
          min={0}
          max={Math.max(m.limit, 1)}
          value={Math.min(m.in_use, Math.max(m.limit, 1))}
          high={Math.max(m.limit, 1) * 0.8}
          optimum={0}
        />
      )}
      {full ? <span className="muted dash-small">At your plan’s limit: another one is refused.</span> : null}
    </li>
  );
}

function InUseNow({ report }: { report: UsageReport }) {
  const plan = isPlanId(report.plan) ? PLANS[report.plan].name : report.plan;
  return (
    <section className="card usage-card" aria-labelledby="usage-now-title">
      <h2 id="usage-now-title">In use now</h2>
      <p className="muted dash-small">Against the limits of your {plan} plan.</p>
      <ul className="usage-meters">
        <Meter id="usage-ws-connections" m={report.connections.websocket} what="WebSocket connections" />
        <Meter id="usage-nats-connections" m={report.connections.nats} what="native NATS connections" />
        <Meter id="usage-requests" m={report.requests_per_minute} what="WebSocket control requests in the last minute" />
      </ul>
    </section>
  );
}

function Totals({ report }: { report: UsageReport }) {
  return (
    <section className="card usage-card" aria-labelledby="usage-totals-title">
      <h2 id="usage-totals-title">Last 30 days</h2>
      <dl className="usage-totals">
        {USAGE_TRANSPORTS.map((t) => (
          <div key={t} className="usage-total" data-testid={`usage-total-${t}`}>
            <dt>{TRANSPORT_LABEL[t]}</dt>
            <dd>
              <span data-testid={`usage-total-${t}-messages`}>{formatCount(report.totals[t].messages)} messages</span>
              <span data-testid={`usage-total-${t}-bytes`}>{formatBytes(report.totals[t].bytes)}</span>
            </dd>
          </div>
        ))}
      </dl>
      {hasTraffic(report) ? null : (
        <p className="usage-empty" data-testid="usage-empty">
          Nothing delivered in the last 30 days yet. Connect with the credentials on the <Link to="/dashboard">Dashboard</Link> page; what the servers deliver
          to you shows here within {formatDuration(report.report_interval_ms)}.
        </p>
      )}
    </section>
  );
}

function DailyCharts({ report }: { report: UsageReport }) {
  const x = report.days.map((_, i) => i);
  const day = (i: number) => report.days[i]?.day ?? '';
  const common = {
    x,
    kind: 'bars' as const,
    integerY: true,
    xLabel: 'Day',
    formatX: (i: number) => dayLabel(day(i)),
    formatXLong: (i: number) => `${dayLabelLong(day(i))} (UTC)`,
  };
  const series = (measure: 'messages' | 'bytes') =>
    USAGE_TRANSPORTS.map((t, i) => ({ label: TRANSPORT_LABEL[t], values: report.days.map((d) => d[t][measure]), colorVar: `--chart-series-${i + 1}` }));
  const first = report.days[0]?.day;
  const last = report.days[report.days.length - 1]?.day;
  const span = first && last ? `${dayLabelLong(first)} to ${dayLabelLong(last)}` : '';
  return (
    <>
      <section className="card usage-card" aria-labelledby="usage-messages-title">
        <h2 id="usage-messages-title">Messages delivered per day</h2>
        <SeriesChart
          {...common}
          label={`Messages delivered per UTC day over WebSocket and native NATS, ${span}. The same figures are in the table below.`}
          series={series('messages')}
          formatY={(v) => `${formatCount(v)} messages`}
          formatYTick={formatCountShort}
        />
      </section>
      <section className="card usage-card" aria-labelledby="usage-bytes-title">
        <h2 id="usage-bytes-title">Data delivered per day</h2>
        <SeriesChart
          {...common}
          label={`Bytes delivered per UTC day over WebSocket and native NATS, ${span}. The same figures are in the table below.`}
          series={series('bytes')}
          formatY={formatBytes}
          formatYTick={formatBytesShort}
        />
      </section>
    </>
  );
}

function DailyTable({ report }: { report: UsageReport }) {
  return (
    <details className="card usage-card usage-table-details">
      <summary>Show as table</summary>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways on a narrow screen must be reachable by keyboard (WCAG 2.1.1) */}
      <section className="table-wrap usage-table-wrap" aria-label="Daily usage, last 30 days" tabIndex={0}>
        <table className="usage-table" data-testid="usage-table">
          <caption className="sr-only">Messages and data delivered per UTC day, last 30 days</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">WebSocket messages</th>
              <th scope="col">WebSocket data</th>
              <th scope="col">Native NATS messages</th>
              <th scope="col">Native NATS data</th>
            </tr>
          </thead>
          <tbody>
            {[...report.days].reverse().map((d) => (
              <tr key={d.day}>
                <th scope="row">{dayLabelLong(d.day)}</th>
                <td>{formatCount(d.websocket.messages)}</td>
                <td>{formatBytes(d.websocket.bytes)}</td>
                <td>{formatCount(d.nats.messages)}</td>
                <td>{formatBytes(d.nats.bytes)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td>{formatCount(report.totals.websocket.messages)}</td>
              <td>{formatBytes(report.totals.websocket.bytes)}</td>
              <td>{formatCount(report.totals.nats.messages)}</td>
              <td>{formatBytes(report.totals.nats.bytes)}</td>
            </tr>
          </tfoot>
        </table>
      </section>
    </details>
  );
}

/**
 * /dashboard/usage ("Usage" in the sidebar, issue 34): what the signed-in customer used, as the
 * servers that delivered it measured (`GET /api/usage`): connections and control requests in use
 * now against the plan, messages and bytes per UTC day for 30 days per transport (two charts and a
 * table), the 30-day totals, and how late the figures can be. Reloads every 30 s while the tab is
 * visible (web/src/lib/usage-refresh.ts) and on Refresh; a failed reload keeps the last figures.
 */
export default function Usage() {
  const { refreshKey } = useDashboardContext();
  const { report, loading, error, refresh } = useUsageReport(refreshKey);

  return (
    <div className="dash-page usage-page">
      <Seo title="Usage" description="What you used of your Tradewind plan, per day and right now." path="/dashboard/usage" noindex />
      <header className="dash-page-head usage-head">
        <div>
          <h1>Usage</h1>
          <p className="muted">What the servers delivered to your connections, and what is in use now.</p>
        </div>
        <div className="usage-refresh">
          <button type="button" className="btn btn-secondary btn-sm" onClick={refresh} disabled={loading} aria-busy={loading}>
            {loading && report ? 'Refreshing…' : 'Refresh'}
          </button>
          {report ? (
            <span className="muted dash-small" data-testid="usage-generated-at" aria-live="polite">
              Figures as of {utcTime(report.generated_at)}
            </span>
          ) : null}
        </div>
      </header>

      {!report && loading ? (
        <section className="card dash-state" role="status" aria-live="polite">
          <span>
            <span className="spinner" aria-hidden="true" /> Loading your usage…
          </span>
        </section>
      ) : !report && error ? (
        <section className="card dash-state" data-testid="usage-error">
          <div role="alert" className="alert alert-error">
            <h2 className="dash-state-title">Could not load your usage</h2>
            <p data-testid="usage-error-message">{error}</p>
          </div>
          <button type="button" className="btn btn-primary" onClick={refresh}>
            Retry
          </button>
        </section>
      ) : report ? (
        <>
          {error ? (
            <div role="alert" className="alert alert-error dash-notice" data-testid="usage-refresh-error">
              Could not refresh your usage. {error} Showing the figures as of {utcTime(report.generated_at)}.{' '}
              <button type="button" className="btn btn-ghost btn-sm" onClick={refresh}>
                Retry
              </button>
            </div>
          ) : null}
          <p className="muted dash-small usage-note" data-testid="usage-note">
            {lagNote(report)}
          </p>
          <div className="usage-grid">
            <InUseNow report={report} />
            <Totals report={report} />
          </div>
          <DailyCharts report={report} />
          <DailyTable report={report} />
        </>
      ) : null}
    </div>
  );
}
