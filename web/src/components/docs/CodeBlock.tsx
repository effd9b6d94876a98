import { useState } from 'react';

/** Props of {@link CodeBlock}. */
export interface CodeBlockProps {
  /** Visible label above the code, e.g. "client.mjs". */
  label: string;
  code: string;
  /** Language name for screen readers and styling, e.g. "javascript". */
  language?: string;
}

/** A labelled, scrollable (and keyboard-focusable) code block with a copy button. */
export function CodeBlock({ label, code, language }: CodeBlockProps) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(code);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <figure className="docs-code">
      <figcaption className="docs-code-head">
        <span>{label}</span>
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => void copy()} aria-label={`Copy ${label}`}>
          {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy'}
        </button>
      </figcaption>
      <pre tabIndex={0} role="region" aria-label={label} data-language={language}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}
