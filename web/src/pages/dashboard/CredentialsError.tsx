import { CREDENTIALS_LOAD_FAILED, CREDENTIALS_REFRESH_FAILED, CREDENTIALS_WAIT_HINT, REFRESH_PAGE_LABEL } from './credentials-errors';

/** Reloads the whole page (the "Refresh Page" button). */
export function reloadPage(): void {
  window.location.reload();
}

/**
 * The credentials panel when the first load failed (product spec §8): heading "Failed to load
 * credentials", the message, the wait hint, a "Refresh Page" button (full reload, `onReloadPage`)
 * and a Retry button (loads again without reloading).
 */
export function CredentialsLoadError({
  message,
  onRetry,
  onReloadPage = reloadPage,
  headingLevel = 2,
}: {
  message: string;
  onRetry: () => void;
  onReloadPage?: () => void;
  headingLevel?: 2 | 3;
}) {
  const H = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section className="card dash-state" data-testid="credentials-error">
      <div role="alert" className="alert alert-error">
        <H className="dash-state-title">{CREDENTIALS_LOAD_FAILED}</H>
        <p data-testid="credentials-error-message">{message}</p>
      </div>
      <p className="muted">{CREDENTIALS_WAIT_HINT}</p>
      <div className="dash-plan-actions">
        <button type="button" className="btn btn-primary" onClick={onReloadPage}>
          {REFRESH_PAGE_LABEL}
        </button>
        <button type="button" className="btn btn-secondary" onClick={onRetry}>
          Retry
        </button>
      </div>
    </section>
  );
}

/** The alert above still-shown credentials when reloading them failed: "Failed to refresh credentials. {message}". */
export function CredentialsRefreshError({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <div role="alert" className="alert alert-error dash-notice" data-testid="credentials-refresh-error">
      {CREDENTIALS_REFRESH_FAILED}. {message}{' '}
      <button type="button" className="btn btn-ghost btn-sm" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}
