/**
 * Copying text to the clipboard with a fallback for browsers (or insecure origins) where the
 * asynchronous Clipboard API is missing or refused.
 */

/** How long a Copy button says "Copied" after a successful copy, in milliseconds. */
export const COPIED_MS = 2000;

/**
 * Message shown when neither the Clipboard API nor the textarea fallback could copy a field's
 * text (product spec §8: "Please manually copy the text"), followed by {@link COPY_FAILED_HOW}.
 */
export const COPY_FAILED_MESSAGE = 'Please manually copy the text';

/** The same for a code example (product spec §8: "...the code"). */
export const COPY_FAILED_CODE_MESSAGE = 'Please manually copy the code';

/** Detail shown after either copy-failure message. */
export const COPY_FAILED_HOW = 'Your browser did not allow copying: select it and press Ctrl+C (⌘C on a Mac).';

/** The full inline alert for a failed copy of `what`: "Please manually copy the text. Your browser …". */
export function copyFailedText(what: 'text' | 'code'): string {
  return `${what === 'code' ? COPY_FAILED_CODE_MESSAGE : COPY_FAILED_MESSAGE}. ${COPY_FAILED_HOW}`;
}

/**
 * How the text was copied: `clipboard` (navigator.clipboard.writeText), `fallback` (a hidden
 * textarea + `document.execCommand('copy')`), or `failed` (both were unavailable or refused).
 */
export type CopyOutcome = 'clipboard' | 'fallback' | 'failed';

/**
 * Copies `text`. Tries `navigator.clipboard.writeText` first; when it is missing or rejects, puts
 * the text in a hidden, read-only textarea, selects it and runs `document.execCommand('copy')`,
 * then removes the textarea and gives focus back to the element that had it. Never throws.
 */
export async function copyText(text: string): Promise<CopyOutcome> {
  const clipboard = typeof navigator !== 'undefined' ? navigator.clipboard : undefined;
  if (clipboard && typeof clipboard.writeText === 'function') {
    try {
      await clipboard.writeText(text);
      return 'clipboard';
    } catch {
      // refused (permissions, insecure origin): try the fallback
    }
  }
  return copyWithTextarea(text) ? 'fallback' : 'failed';
}

/** The hidden-textarea fallback alone: true when `execCommand('copy')` reported success. */
export function copyWithTextarea(text: string): boolean {
  if (typeof document === 'undefined' || !document.body) return false;
  const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.setAttribute('aria-hidden', 'true');
  area.tabIndex = -1;
  area.style.position = 'fixed';
  area.style.top = '0';
  area.style.left = '-9999px';
  area.style.opacity = '0';
  document.body.appendChild(area);
  let ok = false;
  try {
    area.select();
    area.setSelectionRange(0, text.length);
    ok = typeof document.execCommand === 'function' && document.execCommand('copy') === true;
  } catch {
    ok = false;
  } finally {
    area.remove();
    previous?.focus();
  }
  return ok;
}
