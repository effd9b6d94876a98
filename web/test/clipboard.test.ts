import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COPIED_MS, copyText } from '../src/lib/clipboard';

function setClipboard(value: unknown) {
  Object.defineProperty(navigator, 'clipboard', { value, configurable: true, writable: true });
}
function setExecCommand(fn: unknown) {
  Object.defineProperty(document, 'execCommand', { value: fn, configurable: true, writable: true });
}

describe('copyText', () => {
  beforeEach(() => {
    setClipboard(undefined);
    setExecCommand(undefined);
  });
  afterEach(() => {
    setClipboard(undefined);
    setExecCommand(undefined);
  });

  it('uses navigator.clipboard.writeText when it works', async () => {
    const writeText = vi.fn(async () => undefined);
    const exec = vi.fn(() => true);
    setClipboard({ writeText });
    setExecCommand(exec);
    expect(await copyText('SUABC')).toBe('clipboard');
    expect(writeText).toHaveBeenCalledWith('SUABC');
    expect(exec).not.toHaveBeenCalled();
  });

  it('falls back to a hidden textarea + execCommand("copy") when the Clipboard API is missing', async () => {
    let copiedValue: string | null = null;
    const exec = vi.fn((cmd: string) => {
      const area = document.querySelector('textarea');
      copiedValue = area ? area.value : null;
      return cmd === 'copy';
    });
    setExecCommand(exec);
    expect(await copyText('eyJ.jwt')).toBe('fallback');
    expect(exec).toHaveBeenCalledWith('copy');
    expect(copiedValue).toBe('eyJ.jwt');
    expect(document.querySelector('textarea')).toBeNull(); // removed afterwards
  });

  it('falls back when writeText rejects', async () => {
    setClipboard({ writeText: vi.fn(async () => Promise.reject(new DOMException('denied', 'NotAllowedError'))) });
    const exec = vi.fn(() => true);
    setExecCommand(exec);
    expect(await copyText('x')).toBe('fallback');
    expect(exec).toHaveBeenCalledTimes(1);
  });

  it('reports failed when both the Clipboard API and execCommand fail', async () => {
    setClipboard({ writeText: vi.fn(async () => Promise.reject(new Error('no'))) });
    setExecCommand(vi.fn(() => false));
    expect(await copyText('x')).toBe('failed');
    setExecCommand(
      vi.fn(() => {
        throw new Error('unsupported');
      }),
    );
    expect(await copyText('x')).toBe('failed');
    setExecCommand(undefined);
    expect(await copyText('x')).toBe('failed');
  });

  it('shows "Copied" for 2000 ms', () => {
    expect(COPIED_MS).toBe(2000);
  });
});
