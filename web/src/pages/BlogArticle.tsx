import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { Link, Navigate, useLocation, useParams } from 'react-router';
import { BLOG_POSTS, articlePath, blogPost, movedBlogPath, type BlogPostMeta } from '../content/blog/posts';
import type { ArticleSection, FaqEntry } from '../components/blog/article';
import { PostCard, PostMeta, formatPostDate } from '../components/blog/PostCard';
import { Seo } from '../seo';
import { SITE, absoluteUrl } from '../site';
import NotFound from './NotFound';
import './blog.css';

/** What every article module (web/src/content/blog/<slug>.tsx) exports. */
export interface ArticleModule {
  /** The article body: sections with h2 headings, prose, code samples. */
  default: ComponentType;
  /** The body's h2 sections, in order (the table of contents). */
  sections: readonly ArticleSection[];
  /** Questions and answers, shown after the body and as FAQPage structured data. */
  faq?: readonly FaqEntry[];
}

type Loader = () => Promise<ArticleModule>;

/** Every module of the content folder, by path; each `.tsx` is its own chunk. */
const BODY_MODULES = import.meta.glob<ArticleModule>('../content/blog/*.tsx');

/**
 * Article bodies by slug: `web/src/content/blog/<slug>.tsx` of each article in posts.ts, each its
 * own chunk (the prerender waits for them). An article without a body has no loader, renders the
 * not-found page, and so fails the build (web/scripts/build.ts checks every page's canonical path)
 * and web/test/blog.test.tsx.
 */
export const ARTICLE_LOADERS: Readonly<Record<string, Loader>> = Object.freeze(
  Object.fromEntries(
    BLOG_POSTS.flatMap((p) => {
      const load = BODY_MODULES[`../content/blog/${p.slug}.tsx`];
      return load ? [[p.slug, load]] : [];
    }),
  ),
);

/** schema.org objects of an article page: Article, BreadcrumbList and, with questions, FAQPage. */
export function articleJsonLd(post: BlogPostMeta, faq: readonly FaqEntry[] | undefined): object[] {
  const path = articlePath(post.slug);
  const org = { '@type': 'Organization', name: SITE.name, url: absoluteUrl('/') };
  const out: object[] = [
    {
      '@context': 'https://schema.org',
      '@type': 'Article',
      headline: post.title,
      description: post.description,
      datePublished: post.published,
      dateModified: post.updated,
      author: org,
      publisher: { ...org, logo: { '@type': 'ImageObject', url: absoluteUrl('/favicon.svg') } },
      mainEntityOfPage: absoluteUrl(path),
      articleSection: post.category,
      keywords: post.keywords.join(', '),
      inLanguage: 'en',
    },
    {
      '@context': 'https://schema.org',
      '@type': 'BreadcrumbList',
      itemListElement: [
        { '@type': 'ListItem', position: 1, name: 'Home', item: absoluteUrl('/') },
        { '@type': 'ListItem', position: 2, name: 'Blog', item: absoluteUrl('/blog') },
        { '@type': 'ListItem', position: 3, name: post.title, item: absoluteUrl(path) },
      ],
    },
  ];
  if (faq && faq.length > 0) {
    out.push({
      '@context': 'https://schema.org',
      '@type': 'FAQPage',
      mainEntity: faq.map((q) => ({
        '@type': 'Question',
        name: q.question,
        acceptedAnswer: { '@type': 'Answer', text: q.answer },
      })),
    });
  }
  return out;
}

/** Up to three other articles: same category first, then the rest in list order. */
export function relatedPosts(post: BlogPostMeta, count = 3): BlogPostMeta[] {
  const others = BLOG_POSTS.filter((p) => p.slug !== post.slug);
  return [...others.filter((p) => p.category === post.category), ...others.filter((p) => p.category !== post.category)].slice(0, count);
}

/** The article's body and FAQ (what the reading time counts). */
export function ArticleContent({ module }: { module: ArticleModule }) {
  const Body = module.default;
  return (
    <div className="blog-article-content" data-testid="article-content">
      <Body />
      {module.faq && module.faq.length > 0 ? (
        <section aria-labelledby="faq" className="blog-section blog-faq">
          <h2 id="faq">Frequently asked questions</h2>
          {module.faq.map((q) => (
            <div key={q.question} className="blog-faq-item">
              <h3>{q.question}</h3>
              <p>{q.answer}</p>
            </div>
          ))}
        </section>
      ) : null}
    </div>
  );
}

/** Table of contents: a link to every h2 of the body, then the FAQ. */
function TableOfContents({ module }: { module: ArticleModule }) {
  const entries: ArticleSection[] = [...module.sections];
  if (module.faq && module.faq.length > 0) entries.push({ id: 'faq', title: 'Frequently asked questions' });
  return (
    <nav className="blog-toc" aria-labelledby="blog-toc-heading">
      <h2 id="blog-toc-heading" className="blog-toc-heading">
        On this page
      </h2>
      <ol>
        {entries.map((s) => (
          <li key={s.id}>
            <a href={`#${s.id}`}>{s.title}</a>
          </li>
        ))}
      </ol>
    </nav>
  );
}

/** The head of an article page: title, description, keywords, canonical `/<slug>`, Open Graph article facts, structured data. */
function ArticleSeo({ post, faq }: { post: BlogPostMeta; faq: readonly FaqEntry[] | undefined }) {
  return (
    <Seo
      title={post.title}
      description={post.description}
      path={articlePath(post.slug)}
      ogType="article"
      keywords={post.keywords}
      article={{ publishedTime: post.published, modifiedTime: post.updated, section: post.category, tags: [post.category, ...post.tags] }}
      jsonLd={articleJsonLd(post, faq)}
    />
  );
}

function ArticlePage({ post, module }: { post: BlogPostMeta; module: ArticleModule }) {
  return (
    <article className="blog-article">
      <ArticleSeo post={post} faq={module.faq} />
      <div className="container blog-article-container">
        <ArticleHeader post={post} />
        <div className="blog-article-layout">
          <TableOfContents module={module} />
          <div className="blog-article-main">
            <ArticleContent module={module} />
            <aside className="card blog-cta" aria-labelledby="blog-cta-heading">
              <h2 id="blog-cta-heading">Start streaming Solana trades</h2>
              <p>
                The Starter plan is free and carries every Pump.fun and LetsBonk.fun trade; Plus and Pro add PumpSwap and Raydium CPMM. Sign in with Google,
                copy your credentials from the dashboard and connect.
              </p>
              <p className="blog-cta-actions">
                {post.cta.map((l, i) => (
                  <Link key={l.to} className={i === 0 ? 'btn btn-primary' : 'btn btn-secondary'} to={l.to}>
                    {l.label}
                  </Link>
                ))}
              </p>
            </aside>
          </div>
        </div>
        <section className="blog-related" aria-labelledby="blog-related-heading">
          <h2 id="blog-related-heading">Related articles</h2>
          <div className="blog-grid">
            {relatedPosts(post).map((p) => (
              <PostCard key={p.slug} post={p} />
            ))}
          </div>
        </section>
      </div>
    </article>
  );
}

function ArticleHeader({ post }: { post: BlogPostMeta }) {
  return (
    <header className="blog-article-header">
      <p className="blog-back">
        <Link to="/blog">
          <span aria-hidden="true">← </span>Back to Blog
        </Link>
      </p>
      <nav aria-label="Breadcrumb" className="blog-breadcrumb">
        <ol>
          <li>
            <Link to="/">Home</Link>
          </li>
          <li>
            <Link to="/blog">Blog</Link>
          </li>
          <li aria-current="page">{post.title}</li>
        </ol>
      </nav>
      <h1>{post.title}</h1>
      <PostMeta post={post} />
      <p className="muted blog-author">By {post.author}</p>
      {post.updated !== post.published ? (
        <p className="muted blog-updated">
          Updated <time dateTime={post.updated}>{formatPostDate(post.updated)}</time>
        </p>
      ) : null}
      <p className="blog-article-description">{post.description}</p>
    </header>
  );
}

const LAZY_PAGES = new Map<string, LazyExoticComponent<ComponentType>>();

/** One lazy component per slug, created once, rendering the whole article page once its module has loaded. */
function lazyArticle(post: BlogPostMeta, load: Loader): LazyExoticComponent<ComponentType> {
  let page = LAZY_PAGES.get(post.slug);
  if (!page) {
    page = lazy(() =>
      load().then((module) => ({
        default: function LoadedArticle() {
          return <ArticlePage post={post} module={module} />;
        },
      })),
    );
    LAZY_PAGES.set(post.slug, page);
  }
  return page;
}

/** While the article's chunk loads: its header, so the page is never blank. */
function ArticleLoading({ post }: { post: BlogPostMeta }) {
  return (
    <div className="container blog-article-container">
      <ArticleSeo post={post} faq={undefined} />
      <ArticleHeader post={post} />
      <p role="status" className="muted">
        <span className="spinner" aria-hidden="true" /> Loading the article…
      </p>
    </div>
  );
}

/**
 * An article page at `/<slug>` (App.tsx routes each article's path here with its `slug`): the
 * article, or the not-found page (noindex) when `slug` is not an article.
 */
export default function BlogArticle({ slug }: { slug: string }) {
  const post = blogPost(slug);
  const load = post ? ARTICLE_LOADERS[post.slug] : undefined;
  if (!post || !load) return <NotFound />;
  const Page = lazyArticle(post, load);
  return (
    <Suspense fallback={<ArticleLoading post={post} />}>
      <Page />
    </Suspense>
  );
}

/**
 * `/blog/:slug`, where the blog's articles used to live: navigates (replacing the history entry,
 * keeping the query and hash) to the article that holds the page's material now
 * ({@link movedBlogPath}); the not-found page for any other slug. The web server answers the same
 * paths with a 301 before the app loads (web/server/app.ts); this covers links followed inside the app.
 */
export function MovedBlogArticle() {
  const { slug = '' } = useParams();
  const { search, hash } = useLocation();
  const target = movedBlogPath(slug);
  if (!target) return <NotFound />;
  return <Navigate replace to={`${target}${search}${hash}`} />;
}
