import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { AppShell } from './App';
import { SessionProvider } from './session/session';
import './styles.css';

const root = document.getElementById('root')!;
const app = (
  <StrictMode>
    <BrowserRouter>
      <SessionProvider>
        <AppShell />
      </SessionProvider>
    </BrowserRouter>
  </StrictMode>
);
// Prerendered public pages are hydrated; the app shell (dashboard, login, payment) renders fresh.
if (root.firstElementChild) hydrateRoot(root, app);
else createRoot(root).render(app);
