import { useEffect, useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { apiFetch } from '../api';
import { Seo } from '../seo';
import { useAuth } from '../session/session';
import { authLoginUrl, postSignInPath, readPlanParams } from '../lib/gating';
import { planBannerText } from '../lib/upgrade';
import './auth.css';

/** `GET /auth/provider`. */
export interface ProviderInfo {
  provider: 'google' | 'local-oidc';
  label: string;
  local: boolean;
}

/** Readable reasons for auth's error codes when `error_description` is missing. */
const ERROR_FALLBACK: Record<string, string> = {
  access_denied: 'Sign-in was cancelled.',
  invalid_state: 'The sign-in attempt expired or was started in another browser. Please try again.',
  invalid_plan: 'The plan in the sign-in link was not valid.',
};

/** The spec's sign-in failure text for Google (product spec §8). */
export const GOOGLE_SIGN_IN_FAILED = 'Failed to sign in with Google. Please try again.';

/**
 * First sentence of the sign-in failure alert (product spec §8). Shown as an accessible inline
 * alert (`role="alert"`), not `window.alert()`: auth answers a failed sign-in with a redirect to
 * `/login?error=&error_description=` (services/auth/src/http/routes.ts), so the page shows it on load.
 * With the local development stand-in the provider is named instead of Google.
 */
export function signInFailedText(provider: ProviderInfo | null): string {
  return provider?.local ? 'Failed to sign in with the local sign-in stand-in. Please try again.' : GOOGLE_SIGN_IN_FAILED;
}

function GoogleMark() {
  return (
    <svg width="18" height="18" viewBox="0 0 48 48" aria-hidden="true" focusable="false">
      <path fill="#EA4335" d="M24 9.5c3.5 0 6.6 1.2 9.1 3.6l6.8-6.8C35.8 2.4 30.3 0 24 0 14.6 0 6.6 5.4 2.7 13.3l7.9 6.1C12.5 13.6 17.8 9.5 24 9.5z" />
      <path fill="#4285F4" d="M46.5 24.5c0-1.6-.1-3.1-.4-4.5H24v9h12.7c-.6 3-2.3 5.5-4.8 7.2l7.6 5.9c4.4-4.1 7-10.1 7-17.6z" />
      <path fill="#FBBC05" d="M10.6 28.6c-.5-1.4-.8-3-.8-4.6s.3-3.2.8-4.6l-7.9-6.1C1 16.6 0 20.2 0 24s1 7.4 2.7 10.7l7.9-6.1z" />
      <path fill="#34A853" d="M24 48c6.5 0 11.9-2.1 15.9-5.8l-7.6-5.9c-2.1 1.4-4.9 2.3-8.3 2.3-6.2 0-11.5-4.2-13.4-9.9l-7.9 6.1C6.6 42.6 14.6 48 24 48z" />
    </svg>
  );
}

/** /login: the sign-in button (full navigation to /auth/login), the chosen plan, notices and errors. */
export default function Login() {
  const { status } = useAuth();
  const [params] = useSearchParams();
  const plan = readPlanParams(params);
  const [provider, setProvider] = useState<ProviderInfo | null>(null);
  const [providerError, setProviderError] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    apiFetch<ProviderInfo>('/auth/provider', { signal: controller.signal })
      .then(setProvider)
      .catch(() => {
        if (!controller.signal.aborted) setProviderError(true);
      });
    return () => controller.abort();
  }, []);

  const setupRequired = params.get('message') === 'setup-required';
  // A signed-in user sent here by the dashboard's setup check stays (else /login and /dashboard
  // would send each other back and forth); everyone else signed in goes on.
  if (status === 'signed-in' && !setupRequired) return <Navigate to={postSignInPath(plan.tier, plan.period)} replace />;

  const error = params.get('error');
  const errorDescription = params.get('error_description');
  const period = plan.period ?? 'monthly';
  const href = authLoginUrl(plan.tier, plan.period);
  const local = provider?.local === true;
  const buttonText = provider ? provider.label : 'Sign in';

  return (
    <div className="container section auth-page">
      <Seo title="Sign in" description="Sign in to Tradewind to get your streaming credentials and manage your plan." path="/login" noindex />
      <div className="card auth-card">
        <h1>Sign in to Tradewind</h1>
        {error ? (
          <div role="alert" className="alert alert-error auth-message">
            <strong>{signInFailedText(provider)}</strong>{' '}
            {errorDescription?.trim() || ERROR_FALLBACK[error] || `The sign-in could not be completed (${error}).`}
          </div>
        ) : null}
        {setupRequired ? (
          <div role="status" className="alert alert-warning auth-message">
            <strong>Finish setting up your account.</strong>{' '}
            {status === 'signed-in'
              ? 'Your account has no plan yet. Sign in again to finish setting it up; you start on the free Starter plan.'
              : 'Sign in first; you will then continue to the payment for the plan you chose.'}
          </div>
        ) : null}
        {plan.invalidTier || plan.invalidPeriod ? (
          <div role="status" className="alert auth-message" data-testid="login-invalid-plan">
            {plan.invalidTier ? `“${plan.invalidTier}” is not a Tradewind plan` : `“${plan.invalidPeriod}” is not a billing period`}, so it was ignored.{' '}
            {plan.tier ? null : 'You can choose a plan after signing in.'}
          </div>
        ) : null}
        {plan.tier ? (
          <div className="auth-plan" data-testid="login-plan-banner">
            <span className="muted">Selected plan</span>
            <strong>{planBannerText(plan.tier, period)}</strong>
            {plan.tier === 'starter' ? (
              <span className="muted">No payment needed.</span>
            ) : (
              <span className="muted">After signing in you go to secure checkout by Stripe.</span>
            )}
            <Link to="/pricing">Change plan</Link>
          </div>
        ) : (
          <p className="muted">New here? Signing in creates a free Starter account. You can upgrade at any time.</p>
        )}
        <a className={`btn btn-block auth-button${local ? ' auth-button-local' : ''}`} href={href}>
          {local ? null : <GoogleMark />}
          <span>{buttonText}</span>
        </a>
        {local ? (
          <p className="alert alert-warning auth-message" role="note">
            This server runs the <strong>local sign-in stand-in</strong> for development, not Google. Any e-mail address can be typed there; no Google account
            is used.
          </p>
        ) : null}
        {providerError ? <p className="muted auth-small">Could not ask the server which sign-in provider it uses; the button still works.</p> : null}
        <p className="muted auth-small">
          By signing in you agree to the <Link to="/terms">Terms of Service</Link> and the <Link to="/privacy">Privacy Policy</Link>.
        </p>
      </div>
    </div>
  );
}
