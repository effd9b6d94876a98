import { LegalContact } from '../components/marketing/LegalContact';
import { SITE } from '../site';
import { Seo } from '../seo';
import './legal.css';

/** Date the privacy policy and the terms were last changed (ISO). */
export const LEGAL_UPDATED = '2026-11-29';

export default function Privacy() {
  return (
    <>
      <Seo
        title="Privacy Policy"
        description="What Tradewind stores about you: your Google name, e-mail and avatar, session cookies, Stripe ids for billing and your encrypted NATS credentials. No card data, no secrets in logs."
        path="/privacy"
      />
      <article className="container container-narrow legal">
        <h1>Privacy Policy</h1>
        <p className="legal-updated">
          Last updated: <time dateTime={LEGAL_UPDATED}>29 November 2026</time>
        </p>
        <p>
          This policy explains what {SITE.name} (“we”) stores when you use this website and the trade-data streams, why, and what you can do about it. It
          describes what the system actually does; questions go to <LegalContact />.
        </p>

        <h2>1. Your account: Google sign-in</h2>
        <p>
          You sign in with Google (OpenID Connect, scopes <code>openid email profile</code>). Google tells us, and we store:
        </p>
        <ul>
          <li>
            your <strong>name</strong>,
          </li>
          <li>
            your <strong>e-mail address</strong> (we accept only addresses Google has verified),
          </li>
          <li>
            the address of your <strong>profile picture</strong> (avatar),
          </li>
          <li>Google’s identifier for your account, which links future sign-ins to the same account.</li>
        </ul>
        <p>
          E-mail and avatar are refreshed from Google each time you sign in, and so is the name unless you saved one of your own in Settings → Profile (then
          yours is kept). We never see your Google password. We also store your plan, when your account was created, and the state of your subscription.
        </p>

        <h2>2. Cookies and browser storage</h2>
        <p>We set no advertising or tracking cookies. The site uses exactly these:</p>
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Cookies and browser storage used by {SITE.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Purpose and lifetime</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">
                  <code>tw_refresh</code>
                </th>
                <td>
                  HttpOnly cookie, SameSite=Lax, path <code>/auth</code>
                </td>
                <td>
                  Keeps you signed in. It holds a random refresh token that changes on every use; we store only a hash of it. The session ends when you sign
                  out, or after 30 days without use.
                </td>
              </tr>
              <tr>
                <th scope="row">
                  <code>tw_oauth_state</code>
                </th>
                <td>
                  HttpOnly cookie, path <code>/auth</code>
                </td>
                <td>
                  Protects the sign-in round trip to Google against forged or replayed callbacks. It is single use; the sign-in attempt it belongs to expires
                  after 10 minutes.
                </td>
              </tr>
              <tr>
                <th scope="row">
                  <code>tw-theme</code>
                </th>
                <td>localStorage entry</td>
                <td>Remembers whether you chose the light or dark theme. It stays in your browser and is never sent to us.</td>
              </tr>
              <tr>
                <th scope="row">
                  <code>tw-dashboard-sidebar-collapsed</code>
                </th>
                <td>localStorage entry</td>
                <td>Remembers whether you collapsed the dashboard&apos;s sidebar. It stays in your browser and is never sent to us.</td>
              </tr>
            </tbody>
          </table>
        </div>

        <h2>3. Payments</h2>
        <p>
          Paid plans are billed by <strong>Stripe</strong>. You enter your card on Stripe’s own checkout page and manage it in Stripe’s billing portal:{' '}
          <strong>your card details never reach {SITE.name}</strong>. We store the Stripe customer id and subscription id linked to your account, your plan and
          billing period, the subscription’s status, its current period end and whether it is set to cancel, and the Stripe webhook events that told us about
          these changes. Stripe processes your payment data under its own privacy policy.
        </p>

        <h2>4. Your streaming credentials</h2>
        <p>
          To connect to the streams you receive a NATS user JWT and an NKey. We store the JWT and the key’s public part. The <strong>NKey seed</strong> (your
          secret) is stored <strong>encrypted at rest</strong> (AES-256-GCM) so the dashboard can show it to you again, and it is{' '}
          <strong>never written to a log</strong>. When you rotate your credentials, the old key is revoked and its connections are closed. While you are
          connected, we count your open connections and control requests to enforce your plan’s limits.
        </p>

        <h2>5. Notifications and the newsletter</h2>
        <p>
          The dashboard&apos;s notification bell shows events of your account: plan changes, payment results (amount, plan, and a link to Stripe&apos;s invoice
          when Stripe gives one), credential rotations and connections refused because your plan&apos;s limit was reached. We keep your newest 200 and your
          choice of which kinds to show (Settings → Notifications).
        </p>
        <p>
          If you enter your e-mail address in the blog&apos;s <strong>Stay Updated</strong> box, we store that address, a hash of it (which the unsubscribe link
          names instead of the address), when you gave it and where (the blog), to announce new articles. It is not linked to an account, and nothing is sent to
          it yet. Every announcement will carry a <strong>one-click unsubscribe link</strong>: pressing Unsubscribe on the page it opens, or your mail
          program&apos;s own unsubscribe button, deletes the address and everything stored with it at once, without signing in. You can also ask{' '}
          <LegalContact /> to remove it. To limit abuse we count sign-ups per network address for one minute, storing only a hash of the network address.
        </p>
        <h2>6. Logs</h2>
        <p>
          Our services keep operational logs to run and secure the system. <strong>Service logs never contain secrets</strong>: no NKey seeds, tokens,
          passwords, API keys or card data. The web entry point logs one line per request with a request id, the method, the path without its query string, the
          status and the duration.
        </p>

        <h2>7. Trade data</h2>
        <p>
          The trades we stream are decoded from <strong>public on-chain Solana data</strong>. They contain wallet addresses and amounts that anyone can read on
          the blockchain; they contain nothing about you as a {SITE.name} user.
        </p>

        <h2>8. Why we use your data</h2>
        <ul>
          <li>to sign you in and keep you signed in;</li>
          <li>to issue your credentials and enforce your plan’s subjects and limits;</li>
          <li>to bill paid plans and apply plan changes and cancellations;</li>
          <li>to tell you in the dashboard what happened to your account, and, if you asked on the blog, to announce new articles;</li>
          <li>to keep the service secure and working, for example to detect reuse of a stolen session token.</li>
        </ul>
        <p>We do not sell your data and we do not use it for advertising.</p>

        <h2>9. Who else processes it</h2>
        <ul>
          <li>
            <strong>Google</strong>, when you sign in.
          </li>
          <li>
            <strong>Stripe</strong>, when you pay for or manage a paid plan.
          </li>
        </ul>

        <h2>10. How long we keep it</h2>
        <p>
          Sessions end after 30 days without use or when you sign out; sign-in attempts expire after 10 minutes. Your account, subscription records and
          credentials are kept while your account exists; of your notifications, the newest 200. A newsletter address is kept until you unsubscribe (the link in
          every announcement) or ask us to remove it. To have your account and its data deleted, or to get a copy of what we hold about you, contact{' '}
          <LegalContact />.
        </p>

        <h2>10. Your choices and rights</h2>
        <p>
          You can sign out at any time, rotate your credentials in the dashboard, cancel a paid plan in the billing portal, and ask us to access, correct or
          delete your data through <LegalContact />. Depending on where you live, you may also have the right to complain to a data protection authority.
        </p>

        <h2>11. Changes</h2>
        <p>When this policy changes we update the date at the top of this page. Significant changes are also announced on the site.</p>
      </article>
    </>
  );
}
