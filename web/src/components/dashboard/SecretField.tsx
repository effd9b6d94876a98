import { useEffect, useId, useRef, useState } from 'react';
import { COPIED_MS, copyFailedText, copyText } from '../../lib/clipboard';
import { MASK } from '../../lib/credentials';

/**
 * Copy state for a button: `copy(text)` copies with the clipboard fallback; `copied` is true for
 * exactly {@link COPIED_MS} after a success; `failed` is true after both methods failed.
 */
export function useCopy(): { copied: boolean; failed: boolean; copy(text: string): Promise<void> } {
  const [copied, setCopied] = useState(false);
  const [failed, setFailed] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const copy = async (text: string) => {
    const outcome = await copyText(text);
    if (timer.current) clearTimeout(timer.current);
    if (outcome === 'failed') {
      setCopied(false);
      setFailed(true);
      return;
    }
    setFailed(false);
    setCopied(true);
    timer.current = setTimeout(() => {
      setCopied(false);
      timer.current = null;
    }, COPIED_MS);
  };
  return { copied, failed, copy };
}

/**
 * A labelled read-only field with a Copy button ("Copied" for 2 s) and, for secrets, a Show/Hide
 * toggle (aria-pressed). Secrets are masked as bullets until shown; Copy always copies the real
 * value. When copying is impossible an inline alert asks the user to copy by hand.
 */
export function SecretField({ label, value, secret = false, hint }: { label: string; value: string; secret?: boolean; hint?: string }) {
  const id = useId();
  const [shown, setShown] = useState(false);
  const { copied, failed, copy } = useCopy();
  const masked = secret && !shown;
  return (
    <div className="dash-field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p className="muted dash-field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      <div className="dash-field-row">
        <input
          id={id}
          type="text"
          readOnly
          value={masked ? MASK : value}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={hint ? `${id}-hint` : undefined}
          data-masked={masked ? 'true' : 'false'}
          onFocus={(e) => {
            if (!masked) e.currentTarget.select();
          }}
        />
        {secret ? (
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            aria-pressed={shown}
            aria-label={`${shown ? 'Hide' : 'Show'} ${label}`}
            onClick={() => setShown((s) => !s)}
          >
            {shown ? 'Hide' : 'Show'}
          </button>
        ) : null}
        <button
          type="button"
          className="btn btn-secondary btn-sm dash-copy"
          aria-label={copied ? `${label} copied` : `Copy ${label}`}
          onClick={() => void copy(value)}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <span className="sr-only" aria-live="polite">
        {copied ? `${label} copied to the clipboard` : ''}
      </span>
      {failed ? (
        <p role="alert" className="alert alert-error dash-field-alert">
          {copyFailedText('text')}
          {secret ? ' Press Show first to reveal the value.' : ''}
        </p>
      ) : null}
    </div>
  );
}
