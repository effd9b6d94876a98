/**
 * Every path the web app answers (pure data: the static server and the prerender read it too).
 * Public paths are prerendered at build; app paths are rendered in the browser only.
 */
import { BLOG_POSTS, articlePath, movedBlogPath } from './content/blog/posts';

/** Public pages, prerendered into `dist/<path>/index.html` and listed in the sitemap. */
export const PUBLIC_PATHS: readonly string[] = [
  '/',
  '/pricing',
  '/how-it-works',
  '/blog',
  '/community',
  '/privacy',
  '/terms',
  ...BLOG_POSTS.map((p) => articlePath(p.slug)),
];

/** Pages that need the browser (session, payment, a link's token): served the app shell with `noindex`. */
export const APP_PATHS: readonly string[] = [
  '/login',
  '/payment',
  '/dashboard',
  '/dashboard/plan',
  '/dashboard/docs',
  '/dashboard/settings',
  '/dashboard/usage',
  '/dashboard/live',
  '/newsletter/unsubscribe',
];

/**
 * Where a moved page now lives, for the server's 301: `/blog/<slug>` of a retired article → the
 * article that holds its material, `/blog/<slug>` of a current article → `/<slug>` (the
 * specification's article paths); undefined for every other path. `path` is a URL path without
 * query string; one trailing slash is ignored.
 */
export function redirectTarget(path: string): string | undefined {
  const m = /^\/blog\/([a-z0-9-]+)\/?$/.exec(path);
  return m ? movedBlogPath(m[1]!) : undefined;
}
