import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiError } from '../api';
import { errorMessage } from '../lib/credentials';
import { UNSUBSCRIBE_NO_TOKEN_MESSAGE, unsubscribeFromNewsletter } from '../lib/newsletter';
import { Seo } from '../seo';
import './legal.css';

type State = { kind: 'ready' } | { kind: 'sending' } | { kind: 'done' } | { kind: 'error'; message: string; retry: boolean };

/**
 * /newsletter/unsubscribe?token=…: where the unsubscribe link of a newsletter mail leads a person
 * (auth answers the link's GET with a redirect here; docs/auth.md "Unsubscribe"). Opening the page
 * changes nothing, since mail scanners open links on their own: one click on Unsubscribe POSTs the
 * token to `/api/newsletter/unsubscribe`, which deletes the address, and the page says so. A link
 * without a token, or one auth refuses (400 `invalid_unsubscribe_token`: damaged or changed), shows
 * why and offers no button; a network or server failure keeps the button to try again. No sign-in.
 */
export default function NewsletterUnsubscribe() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [state, setState] = useState<State>(token ? { kind: 'ready' } : { kind: 'error', message: UNSUBSCRIBE_NO_TOKEN_MESSAGE, retry: false });

  const unsubscribe = async () => {
    if (state.kind === 'sending') return;
    setState({ kind: 'sending' });
    try {
      await unsubscribeFromNewsletter(token);
      setState({ kind: 'done' });
    } catch (err) {
      // A refused token stays refused; a network or server failure may pass.
      setState({ kind: 'error', message: errorMessage(err), retry: !(err instanceof ApiError && err.status >= 400 && err.status < 500) });
    }
  };

  return (
    <article className="container legal">
      <Seo
        title="Unsubscribe from the newsletter"
        description="Remove your e-mail address from Tradewind's new-article announcements."
        path="/newsletter/unsubscribe"
        noindex
      />
      <h1>Unsubscribe from the newsletter</h1>
      {state.kind === 'done' ? (
        <>
          <p className="alert alert-success" role="status">
            You are unsubscribed. Your e-mail address has been deleted from our list, and no more announcements will be sent to it.
          </p>
          <p>
            Changed your mind? The <Link to="/blog">blog</Link>&apos;s Stay Updated box adds it again.
          </p>
        </>
      ) : (
        <>
          <p>
            This removes the address this link was sent to from our list for new-article announcements: we delete the address and everything stored with it (see
            the <Link to="/privacy">privacy policy</Link>). No sign-in is needed.
          </p>
          {state.kind === 'error' ? (
            <p className="alert alert-error" role="alert">
              {state.message}
            </p>
          ) : null}
          {state.kind !== 'error' || state.retry ? (
            <p>
              <button type="button" className="btn btn-primary" onClick={unsubscribe} disabled={state.kind === 'sending'}>
                {state.kind === 'sending' ? 'Unsubscribing…' : state.kind === 'error' ? 'Try again' : 'Unsubscribe'}
              </button>
            </p>
          ) : (
            <p>
              <Link to="/">Back to the home page</Link>
            </p>
          )}
          <p className="muted">
            We ask you to press the button because mail programs open links by themselves to check them; opening this page changes nothing.
          </p>
        </>
      )}
    </article>
  );
}
