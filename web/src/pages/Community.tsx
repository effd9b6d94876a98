import { Link } from 'react-router';
import { PLANS } from '@tradewind/contracts/plans';
import { Faq, faqJsonLd, type FaqItem } from '../components/marketing/Faq';
import { SITE } from '../site';
import { Seo } from '../seo';
import './community.css';

/** The community page's questions. */
export function communityFaq(): FaqItem[] {
  const pro = PLANS.pro;
  return [
    {
      question: 'Where do I get help with my connection?',
      answer: `Ask in the community channels listed on this page${SITE.supportEmail ? ` or write to ${SITE.supportEmail}` : ''}. Include the error code and message the server sent (for example connection_limit or subject_not_in_plan), the transport you use and the time; never post your NKey seed.`,
    },
    {
      question: `How do I get more than ${pro.connections} connections?`,
      answer: `${pro.name} allows ${pro.connections} concurrent connections per transport. Tell us how many connections you need, on which transport, and for which subjects, and we will work out a plan with you.`,
    },
    {
      question: 'Is the community free?',
      answer: 'Yes. Anyone can join, whatever their plan, including the free Starter plan.',
    },
    {
      question: 'Can I suggest a new source or feature?',
      answer: 'Yes. Tell us which program or field you need and what you would build with it; requests with a concrete use are the easiest for us to weigh.',
    },
  ];
}

/**
 * One community channel (the specification's "Community channel": name, description, link,
 * features, responseTime). `responseTime` is the specification's advertised figure, published as
 * the team's target for a first answer.
 */
export interface CommunityChannel {
  name: 'Discord' | 'Telegram';
  link: string | undefined;
  description: string;
  features: string[];
  responseTime: string;
}

/** The two channels; links come from the deployment (`VITE_DISCORD_URL`, `VITE_TELEGRAM_URL`). */
export function communityChannels(): CommunityChannel[] {
  return [
    {
      name: 'Discord',
      link: SITE.discordUrl,
      description: 'Questions, integration help and announcements, in threads you can search later.',
      features: ['Integration help from the team', 'Searchable threads per topic', 'Announcements of new fields and maintenance'],
      responseTime: 'under 1 hour',
    },
    {
      name: 'Telegram',
      link: SITE.telegramUrl,
      description: 'Quick questions and service announcements on your phone.',
      features: ['Quick answers on the go', 'Service status announcements', 'Direct line for outage reports'],
      responseTime: 'under 30 minutes',
    },
  ];
}

export default function Community() {
  const channels = communityChannels();
  const faq = communityFaq();
  const pro = PLANS.pro;

  return (
    <>
      <Seo
        title="Community and support"
        description="Get help with Tradewind's Solana trade streams, ask for more connections, and talk to other developers on Discord and Telegram."
        path="/community"
        jsonLd={[faqJsonLd(faq)]}
      />
      <section className="section">
        <div className="container">
          <h1>Community and support</h1>
          <p className="community-lead muted">Ask questions, get help with your integration and hear about changes to the streams first.</p>
          <ul className="grid grid-2 community-channels">
            {channels.map((c) => (
              <li key={c.name} className="card" data-testid={`channel-${c.name.toLowerCase()}`}>
                <h2 className="community-channel-title">{c.name}</h2>
                <p className="muted">{c.description}</p>
                <ul className="community-channel-features">
                  {c.features.map((f) => (
                    <li key={f}>{f}</li>
                  ))}
                </ul>
                <p className="community-response" data-testid={`response-${c.name.toLowerCase()}`}>
                  Response time: <strong>{c.responseTime}</strong>
                </p>
                {c.link ? (
                  <a className="btn btn-primary" href={c.link} target="_blank" rel="noopener noreferrer">
                    Join us on {c.name}
                    <span className="sr-only"> (opens in a new tab)</span>
                  </a>
                ) : (
                  <p className="alert community-unavailable">The {c.name} invite is not published for this deployment.</p>
                )}
              </li>
            ))}
          </ul>
          {SITE.supportEmail ? (
            <p className="community-email">
              Prefer e-mail? Write to <a href={`mailto:${SITE.supportEmail}`}>{SITE.supportEmail}</a>.
            </p>
          ) : null}
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="community-times-title">
        <div className="container container-narrow">
          <h2 id="community-times-title">Response times</h2>
          <p>These are our targets for a first answer, not contractual guarantees:</p>
          <ul>
            {channels.map((c) => (
              <li key={c.name}>
                {c.name}: {c.responseTime}.
              </li>
            ))}
            <li>We aim to acknowledge a report of a stream outage or wrong data within a few hours during business hours.</li>
            <li>We aim to reply to requests for more connections within two business days.</li>
          </ul>
        </div>
      </section>

      <section className="section" aria-labelledby="community-benefits-title">
        <div className="container">
          <h2 id="community-benefits-title">Why join</h2>
          <ul className="grid grid-3 community-benefits">
            <li className="card">
              <h3>Help from the people who run the streams</h3>
              <p className="muted">Questions about messages, fields, limits and errors are answered by the team that builds Tradewind.</p>
            </li>
            <li className="card">
              <h3>Changes announced first</h3>
              <p className="muted">New fields, program upgrades and maintenance are announced in the channels before they happen.</p>
            </li>
            <li className="card">
              <h3>Shape what comes next</h3>
              <p className="muted">Suggest sources and features, and share what you build with other developers.</p>
            </li>
          </ul>
        </div>
      </section>

      <section className="section section-alt" id="more-connections" aria-labelledby="community-more-title">
        <div className="container container-narrow">
          <h2 id="community-more-title">Need more connections?</h2>
          <p>
            {pro.name} allows {pro.connections} concurrent connections per transport (WebSocket and native NATS each) and{' '}
            {pro.requestsPerMinute.toLocaleString('en-US')} control requests per minute. If your system needs more, send us:
          </p>
          <ol>
            <li>how many concurrent connections you need, and on which transport;</li>
            <li>which subjects you subscribe to, and whether you replay history;</li>
            <li>the e-mail address of your Tradewind account.</li>
          </ol>
          <p>
            {SITE.supportEmail ? (
              <>
                Write to <a href={`mailto:${SITE.supportEmail}?subject=More%20connections`}>{SITE.supportEmail}</a>
                {SITE.discordUrl || SITE.telegramUrl ? ' or post in one of the channels above' : ''}.
              </>
            ) : SITE.discordUrl || SITE.telegramUrl ? (
              'Post it in one of the channels above and we will continue in private.'
            ) : (
              'This deployment has not published a contact channel yet; ask the operator of this site for one.'
            )}
          </p>
          <p className="muted">
            Until then, compare the published plans on the <Link to="/pricing">pricing page</Link>.
          </p>
        </div>
      </section>

      <section className="section" aria-labelledby="community-faq-title">
        <div className="container container-narrow">
          <h2 id="community-faq-title">Frequently asked questions</h2>
          <Faq items={faq} />
        </div>
      </section>
    </>
  );
}
