import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';

export interface ToastInput {
  kind?: 'success' | 'error';
  title: string;
  message?: string;
  /** Milliseconds before it goes away by itself (default 6000). */
  durationMs?: number;
}

const ToastContext = createContext<(toast: ToastInput) => void>(() => undefined);

/** Shows a toast (polite live region; errors are announced assertively). */
export function useToast(): (toast: ToastInput) => void {
  return useContext(ToastContext);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Array<ToastInput & { id: number }>>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((ts) => ts.filter((t) => t.id !== id)), []);
  const show = useCallback(
    (toast: ToastInput) => {
      const id = next.current++;
      setToasts((ts) => [...ts, { ...toast, id }]);
      setTimeout(() => dismiss(id), toast.durationMs ?? 6000);
    },
    [dismiss],
  );
  return (
    <ToastContext.Provider value={show}>
      {children}
      <div className="toast-region" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} className={`toast${t.kind === 'error' ? ' toast-error' : ''}`} role={t.kind === 'error' ? 'alert' : 'status'}>
            <div>
              <strong>{t.title}</strong>
              {t.message ? <div className="muted">{t.message}</div> : null}
            </div>
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => dismiss(t.id)} aria-label="Dismiss notification">
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
