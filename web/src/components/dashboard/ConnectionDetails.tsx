import { useId, useState } from 'react';
import { useAuth } from '../../session/session';
import {
  CREDS_FILE_NAME,
  connectionSnippet,
  connectionUrl,
  downloadText,
  errorMessage,
  fetchCredsFile,
  type Credentials,
  type Transport,
} from '../../lib/credentials';
import { copyFailedText } from '../../lib/clipboard';
import { SecretField, useCopy } from './SecretField';

const TRANSPORTS: ReadonlyArray<{ id: Transport; label: string; note: string }> = [
  { id: 'websocket', label: 'WebSocket', note: 'JSON frames over WebSocket (port 9223): browsers, Node.js, Python.' },
  { id: 'nats', label: 'NATS', note: 'Native NATS JetStream (port 4223) with a NATS client library or the nats CLI.' },
];

/** "Download .creds" (GET /api/nats?format=creds), with its error shown inline. */
export function DownloadCredsButton() {
  const { accessToken } = useAuth();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="dash-download">
      <button
        type="button"
        className="btn btn-secondary"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            downloadText(CREDS_FILE_NAME, await fetchCredsFile(await accessToken()));
          } catch (err) {
            setError(errorMessage(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? 'Preparing…' : 'Download .creds'}
      </button>
      {error ? (
        <p role="alert" className="alert alert-error">
          Could not download the credentials file: {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The connection details: a WebSocket/NATS radio group switching the URL field, the user JWT and
 * NKey seed (masked until shown), the .creds download and a ready-to-run snippet.
 */
export function ConnectionDetails({ credentials, headingLevel = 2 }: { credentials: Credentials; headingLevel?: 2 | 3 }) {
  const [transport, setTransport] = useState<Transport>('websocket');
  const name = useId();
  const snippetId = useId();
  const url = connectionUrl(credentials, transport);
  const snippet = connectionSnippet(transport, url);
  const { copied, failed, copy } = useCopy();
  const H = headingLevel === 2 ? 'h2' : 'h3';
  const Sub = headingLevel === 2 ? 'h3' : 'h4';
  const current = TRANSPORTS.find((t) => t.id === transport)!;
  return (
    <section className="card dash-connection" aria-labelledby={`${name}-title`}>
      <H id={`${name}-title`}>Connection details</H>
      <fieldset className="dash-transport">
        <legend>Transport</legend>
        <div className="dash-segmented">
          {TRANSPORTS.map((t) => (
            <label key={t.id} className="dash-segment">
              <input type="radio" name={name} value={t.id} checked={transport === t.id} onChange={() => setTransport(t.id)} />
              <span>{t.label}</span>
            </label>
          ))}
        </div>
        <p className="muted dash-transport-note">{current.note}</p>
      </fieldset>
      <SecretField label={transport === 'websocket' ? 'WebSocket URL' : 'NATS URL'} value={url} />
      <SecretField label="User JWT" value={credentials.user_jwt} secret />
      <SecretField
        label="NKey seed"
        value={credentials.user_nkey_seed}
        secret
        hint="Keep the seed private: anyone holding it can stream on your plan. Rotate it in Settings if it leaks."
      />
      <DownloadCredsButton />
      <div className="dash-snippet">
        <div className="dash-snippet-head">
          <Sub id={snippetId}>Ready-to-run example ({current.label})</Sub>
          <button type="button" className="btn btn-ghost btn-sm" aria-label={copied ? 'Example copied' : 'Copy example'} onClick={() => void copy(snippet)}>
            {copied ? 'Copied' : 'Copy'}
          </button>
        </div>
        <pre aria-labelledby={snippetId} tabIndex={0}>
          <code>{snippet}</code>
        </pre>
        {failed ? (
          <p role="alert" className="alert alert-error">
            {copyFailedText('code')}
          </p>
        ) : null}
      </div>
    </section>
  );
}
