import { Link } from 'react-router';
import { PLANS, PLAN_IDS, annualTotalUsd } from '@tradewind/contracts/plans';
import { LegalContact } from '../components/marketing/LegalContact';
import { formatUsd } from '../lib/pricing';
import { SITE } from '../site';
import { Seo } from '../seo';
import './legal.css';
import { PlanLimitsTable } from '../components/marketing/PlanLimitsTable';

/** Date the terms were last changed (ISO). */
const LEGAL_UPDATED = '2026-11-21';

export default function Terms() {
  const { starter, pro } = PLANS;
  return (
    <>
      <Seo
        title="Terms of Service"
        description="The terms for using Tradewind: plans and limits, fair use of connections, billing through Stripe, and trade data provided as-is, not as financial advice."
        path="/terms"
      />
      <article className="container container-narrow legal">
        <h1>Terms of Service</h1>
        <p className="legal-updated">
          Last updated: <time dateTime={LEGAL_UPDATED}>21 November 2026</time>
        </p>
        <p>
          These terms apply to your use of {SITE.name}: this website, the dashboard and the trade-data streams over WebSocket and NATS JetStream. By signing in
          you accept them. Questions go to <LegalContact />.
        </p>

        <h2>1. The service</h2>
        <p>
          {SITE.name} decodes Solana transactions of Pump.fun, LetsBonk.fun (Raydium LaunchLab), PumpSwap and Raydium CPMM and streams each trade as a JSON
          message on the subjects <code>basic.pumpfun</code>, <code>basic.bonk</code>, <code>premium.pumpswap</code> and <code>premium.raydium</code>.
        </p>

        <h2>2. Your account</h2>
        <p>
          You sign in with a Google account and are responsible for what is done with your account and your streaming credentials. Keep your NKey seed secret;
          if it may have leaked, rotate your credentials in the dashboard at once. The Privacy Policy explains what we store:{' '}
          <Link to="/privacy">Privacy Policy</Link>.
        </p>

        <h2>3. Plans and limits</h2>
        <p>Each plan includes the following; the limits are enforced by the service.</p>
        <PlanLimitsTable
          caption="Plans, prices and limits"
          sentenceCase
          priceColumns={[
            {
              header: 'Price',
              cell: (p) => (p.monthlyUsd === 0 ? 'Free' : `${formatUsd(p.monthlyUsd)}/month, or ${formatUsd(annualTotalUsd(p))}/year billed yearly`),
            },
          ]}
        />
        <p>
          Prices are in US dollars. The current prices are always those on the <Link to="/pricing">pricing page</Link>.
        </p>

        <h2>4. Fair use of connections</h2>
        <ul>
          <li>
            Connections are counted per transport: one WebSocket and one NATS connection on {starter.name}, up to {pro.connections} of each on {pro.name}. A
            connection over your limit is refused.
          </li>
          <li>Credentials belong to one customer. Do not share or resell them, and do not try to get around the limits.</li>
          <li>
            A client that does not read its messages fast enough is disconnected (“slow consumer”), so one client cannot hold back the stream for everyone.
            Reconnect with a back-off instead of in a tight loop.
          </li>
          <li>
            If you need more connections than {pro.name} allows, <Link to="/community">ask us</Link>; we may suspend credentials used abusively.
          </li>
        </ul>

        <h2>5. Billing</h2>
        <ul>
          <li>Paid plans are billed in advance, monthly or yearly, through Stripe. Your card details are handled by Stripe only.</li>
          <li>
            <strong>Plan changes</strong> between paid plans take effect immediately; the prorated difference is invoiced and charged, or credited, at once.
          </li>
          <li>
            <strong>Cancellation</strong> is done in the billing portal and takes effect at the <strong>end of the period</strong> already paid; you keep the
            plan until then and return to {starter.name} afterwards.
          </li>
          <li>
            If a payment fails, the plan stays active while Stripe retries it; if the subscription then ends unpaid, your account returns to {starter.name}.
          </li>
        </ul>

        <h2>6. Data provided as-is; not financial advice</h2>
        <p>
          Trade data is decoded from public on-chain data and provided <strong>as-is</strong>, without any warranty of completeness, accuracy or timeliness. A
          transaction whose logs are truncated, or a program version we do not decode yet, can produce no message. Prices, market caps and volumes shown on this
          site are computed from our own decoded trades. <strong>Nothing on {SITE.name} is financial advice</strong>; you alone are responsible for decisions
          you take with the data.
        </p>
        <p>
          <strong>Replay data is labelled.</strong> Figures built from a replay of recorded mainnet trades (for example on a demonstration deployment) are
          marked “Replay” and are not live market data. History replay on {pro.name} delivers stored messages of the stream’s retention period (24 hours by
          default), then the live feed.
        </p>

        <h2>7. Availability and changes</h2>
        <p>
          We work to keep the streams running but do not promise uninterrupted availability. Upstream programs change; we may add fields or subjects. We
          announce changes that break existing clients before making them where we can.
        </p>

        <h2>8. Ending</h2>
        <p>
          You may stop using {SITE.name} at any time and cancel a paid plan in the billing portal. We may suspend or close accounts that break these terms; we
          will tell you why at the e-mail address of your account.
        </p>

        <h2>9. Liability</h2>
        <p>
          To the extent the law allows, {SITE.name} is not liable for indirect losses or for losses from trading decisions, and our total liability is limited
          to what you paid us in the twelve months before the claim.
        </p>

        <h2>10. Changes to these terms</h2>
        <p>When these terms change we update the date at the top of this page. Continuing to use the service after a change means you accept the new terms.</p>
      </article>
    </>
  );
}
