import { createContext, startTransition, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';

export type Theme = 'light' | 'dark';

/** localStorage key of the chosen theme (index.html reads it before first paint). */
export const THEME_STORAGE_KEY = 'tw-theme';

const ThemeContext = createContext<{ theme: Theme; toggleTheme(): void }>({ theme: 'light', toggleTheme: () => undefined });

/** The current theme and its toggle. */
export function useTheme(): { theme: Theme; toggleTheme(): void } {
  return useContext(ThemeContext);
}

/** Light and dark themes via `<html data-theme>`; the choice is saved in localStorage. */
export function ThemeProvider({ children }: { children: ReactNode }) {
  const [theme, setTheme] = useState<Theme>('light');
  useEffect(() => {
    // A transition, so a page still hydrating keeps its server HTML (see session.tsx).
    startTransition(() => setTheme(document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light'));
  }, []);
  const toggleTheme = useCallback(() => {
    setTheme((t) => {
      const next: Theme = t === 'dark' ? 'light' : 'dark';
      document.documentElement.dataset.theme = next;
      try {
        localStorage.setItem(THEME_STORAGE_KEY, next);
      } catch {
        // private mode: the theme still applies for this page view
      }
      return next;
    });
  }, []);
  return <ThemeContext.Provider value={{ theme, toggleTheme }}>{children}</ThemeContext.Provider>;
}
