import type { ReactNode } from 'react';
import { PLANS, PLAN_IDS, type Plan } from '@tradewind/contracts/plans';

/** A price column of {@link PlanLimitsTable}: its header and the cell of each plan. */
export interface PlanPriceColumn {
  header: string;
  cell(plan: Plan): ReactNode;
}

/**
 * The plans as the catalogue enforces them (packages/contracts/src/plans.ts): one row a plan with its
 * price columns, subjects, connections per transport, control requests per minute and replay.
 * Articles and the Terms read the same table, so none can promise more than is enforced.
 * `sentenceCase` capitalises the headers and the replay cells (Yes/No; else yes/—).
 */
export function PlanLimitsTable({
  priceColumns,
  caption,
  sentenceCase = false,
}: {
  priceColumns: readonly PlanPriceColumn[];
  caption?: string;
  sentenceCase?: boolean;
}) {
  const head = (text: string) => (sentenceCase ? text.charAt(0).toUpperCase() + text.slice(1) : text);
  return (
    <div className="table-wrap">
      <table>
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead>
          <tr>
            <th scope="col">{head('plan')}</th>
            {priceColumns.map((c) => (
              <th key={c.header} scope="col">
                {c.header}
              </th>
            ))}
            <th scope="col">{head('subjects')}</th>
            <th scope="col">{head('connections per transport')}</th>
            <th scope="col">{head('control requests per minute')}</th>
            <th scope="col">{head('replay')}</th>
          </tr>
        </thead>
        <tbody>
          {PLAN_IDS.map((id) => {
            const p = PLANS[id];
            return (
              <tr key={id}>
                <th scope="row">{p.name}</th>
                {priceColumns.map((c) => (
                  <td key={c.header}>{c.cell(p)}</td>
                ))}
                <td>{p.subjects.join(', ')}</td>
                <td>{p.connections}</td>
                <td>{p.requestsPerMinute.toLocaleString('en-US')}</td>
                <td>{p.replay ? (sentenceCase ? 'Yes' : 'yes') : sentenceCase ? 'No' : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
