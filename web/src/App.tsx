import { lazy, Suspense, type ReactNode } from 'react';
import { Route, Routes } from 'react-router';
import { Layout } from './components/Layout';
import { ToastProvider } from './components/Toast';
import { ThemeProvider } from './theme';
import { BLOG_POSTS } from './content/blog/posts';

// Route-level code splitting: each page is its own chunk, loaded on first visit.
const Home = lazy(() => import('./pages/Home'));
const Pricing = lazy(() => import('./pages/Pricing'));
const HowItWorks = lazy(() => import('./pages/HowItWorks'));
const Blog = lazy(() => import('./pages/Blog'));
const BlogArticle = lazy(() => import('./pages/BlogArticle'));
const MovedBlogArticle = lazy(() => import('./pages/BlogArticle').then((m) => ({ default: m.MovedBlogArticle })));
const Community = lazy(() => import('./pages/Community'));
const Privacy = lazy(() => import('./pages/Privacy'));
const Terms = lazy(() => import('./pages/Terms'));
const Login = lazy(() => import('./pages/Login'));
const Payment = lazy(() => import('./pages/Payment'));
const NewsletterUnsubscribe = lazy(() => import('./pages/NewsletterUnsubscribe'));
const NotFound = lazy(() => import('./pages/NotFound'));
const DashboardLayout = lazy(() => import('./pages/dashboard/DashboardLayout'));
const Overview = lazy(() => import('./pages/dashboard/Overview'));
const PlanPage = lazy(() => import('./pages/dashboard/Plan'));
const Docs = lazy(() => import('./pages/dashboard/Docs'));
const Settings = lazy(() => import('./pages/dashboard/Settings'));
const Usage = lazy(() => import('./pages/dashboard/Usage'));
const Live = lazy(() => import('./pages/dashboard/Live'));

/** Shown while a page's chunk loads (rarely visible: chunks are small and prefetched by the browser cache). */
export function PageLoading() {
  return (
    <div className="container section center" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> <span className="sr-only">Loading…</span>
    </div>
  );
}

function Page({ children }: { children: ReactNode }) {
  return <Suspense fallback={<PageLoading />}>{children}</Suspense>;
}

/** Every route of the product (web/src/route-paths.ts lists the same paths for the server). */
export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route
          index
          element={
            <Page>
              <Home />
            </Page>
          }
        />
        <Route
          path="pricing"
          element={
            <Page>
              <Pricing />
            </Page>
          }
        />
        <Route
          path="how-it-works"
          element={
            <Page>
              <HowItWorks />
            </Page>
          }
        />
        <Route
          path="blog"
          element={
            <Page>
              <Blog />
            </Page>
          }
        />
        {/* The articles live at /<slug> (specification section 2); /blog/<slug> is where they used to be. */}
        {BLOG_POSTS.map((p) => (
          <Route
            key={p.slug}
            path={p.slug}
            element={
              <Page>
                <BlogArticle slug={p.slug} />
              </Page>
            }
          />
        ))}
        <Route
          path="blog/:slug"
          element={
            <Page>
              <MovedBlogArticle />
            </Page>
          }
        />
        <Route
          path="community"
          element={
            <Page>
              <Community />
            </Page>
          }
        />
        <Route
          path="privacy"
          element={
            <Page>
              <Privacy />
            </Page>
          }
        />
        <Route
          path="terms"
          element={
            <Page>
              <Terms />
            </Page>
          }
        />
        <Route
          path="login"
          element={
            <Page>
              <Login />
            </Page>
          }
        />
        <Route
          path="payment"
          element={
            <Page>
              <Payment />
            </Page>
          }
        />
        <Route
          path="newsletter/unsubscribe"
          element={
            <Page>
              <NewsletterUnsubscribe />
            </Page>
          }
        />
        <Route
          path="*"
          element={
            <Page>
              <NotFound />
            </Page>
          }
        />
      </Route>
      <Route
        path="dashboard"
        element={
          <Page>
            <DashboardLayout />
          </Page>
        }
      >
        <Route
          index
          element={
            <Page>
              <Overview />
            </Page>
          }
        />
        <Route
          path="plan"
          element={
            <Page>
              <PlanPage />
            </Page>
          }
        />
        <Route
          path="docs"
          element={
            <Page>
              <Docs />
            </Page>
          }
        />
        <Route
          path="settings"
          element={
            <Page>
              <Settings />
            </Page>
          }
        />
        <Route
          path="usage"
          element={
            <Page>
              <Usage />
            </Page>
          }
        />
        <Route
          path="live"
          element={
            <Page>
              <Live />
            </Page>
          }
        />
      </Route>
    </Routes>
  );
}

/** Providers shared by the browser entry and the prerender (the session provider differs and wraps this). */
export function AppShell() {
  return (
    <ThemeProvider>
      <ToastProvider>
        <AppRoutes />
      </ToastProvider>
    </ThemeProvider>
  );
}
