import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { NEWSLETTER_EMPTY_MESSAGE, newsletterErrorMessage, subscribeToNewsletter } from '../../lib/newsletter';
import './stay-updated.css';

type Outcome = { kind: 'stored'; email: string } | { kind: 'error'; message: string } | null;

/**
 * The blog's "Stay Updated" box (product spec §2 /blog): an e-mail field and Subscribe. Subscribe
 * stores the address through `POST /api/newsletter` and then says so, naming the stored address;
 * a refused address (400 `invalid_email`), a 429 or a network failure shows the reason and keeps
 * what was typed. The button is disabled while the request runs. The RSS feed stays offered for
 * readers who would rather not hand over an address.
 */
export function StayUpdated() {
  const [email, setEmail] = useState('');
  const [sending, setSending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const id = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (sending) return;
    if (!email.trim()) {
      setOutcome({ kind: 'error', message: NEWSLETTER_EMPTY_MESSAGE });
      inputRef.current?.focus();
      return;
    }
    setSending(true);
    setOutcome(null);
    try {
      const stored = await subscribeToNewsletter(email);
      setOutcome({ kind: 'stored', email: stored.email });
      setEmail('');
    } catch (err) {
      setOutcome({ kind: 'error', message: newsletterErrorMessage(err) });
      inputRef.current?.focus();
    } finally {
      setSending(false);
    }
  };

  const errorId = `${id}-error`;
  return (
    <section className="card stay-updated" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Stay Updated</h2>
      <p>
        Add your e-mail address to our list for new-article announcements. We store the address and the date you gave it, and use them for nothing else (see the{' '}
        <Link to="/privacy">privacy policy</Link>).
      </p>
      <form className="stay-updated-form" onSubmit={submit} noValidate>
        <label htmlFor={`${id}-email`}>E-mail address</label>
        <div className="stay-updated-row">
          <input
            ref={inputRef}
            id={`${id}-email`}
            type="email"
            name="email"
            autoComplete="email"
            inputMode="email"
            placeholder="you@example.com"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={outcome?.kind === 'error' ? true : undefined}
            aria-describedby={outcome?.kind === 'error' ? errorId : undefined}
          />
          <button type="submit" className="btn btn-primary" disabled={sending}>
            {sending ? 'Subscribing…' : 'Subscribe'}
          </button>
        </div>
      </form>
      <div className="stay-updated-outcome">
        {outcome?.kind === 'stored' ? (
          <p className="alert alert-success" role="status">
            Subscribed: <strong>{outcome.email}</strong> is stored on our list for new-article announcements.
          </p>
        ) : outcome?.kind === 'error' ? (
          <p className="alert alert-error" role="alert" id={errorId}>
            {outcome.message}
          </p>
        ) : null}
      </div>
      <p className="muted stay-updated-feed">
        Prefer a feed reader? New articles also appear in the{' '}
        <a href="/blog/rss.xml" type="application/rss+xml">
          RSS feed
        </a>
        .
      </p>
    </section>
  );
}
