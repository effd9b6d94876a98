/**
 * Every path the web app answers (pure data: the static server and the prerender read it too).
 * Public paths are prerendered at build; app paths are rendered in the browser only.
 */
import { BLOG_POSTS } from './content/blog/posts';

/** Public pages, prerendered into `dist/<path>/index.html` and listed in the sitemap. */
export const PUBLIC_PATHS: readonly string[] = [
  '/',
  '/pricing',
  '/how-it-works',
  '/blog',
  '/community',
  '/privacy',
  '/terms',
  ...BLOG_POSTS.map((p) => `/blog/${p.slug}`),
];

/** Pages that need the browser (session, payment): served the app shell with `noindex`. */
export const APP_PATHS: readonly string[] = [
  '/login',
  '/payment',
  '/dashboard',
  '/dashboard/plan',
  '/dashboard/docs',
  '/dashboard/settings',
];
