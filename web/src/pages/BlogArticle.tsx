import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { Link, useParams } from 'react-router';
import { BLOG_POSTS, blogPost, type BlogPostMeta } from '../content/blog/posts';
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

/** Article bodies by slug, each its own chunk (the prerender waits for them). */
export const ARTICLE_LOADERS: Readonly<Record<string, Loader>> = {
  'stream-pump-fun-trades-websocket': () => import('../content/blog/stream-pump-fun-trades-websocket'),
  'nats-jetstream-solana-trades': () => import('../content/blog/nats-jetstream-solana-trades'),
  'decoding-pump-fun-and-letsbonk-trades': () => import('../content/blog/decoding-pump-fun-and-letsbonk-trades'),
  'pumpswap-raydium-cpmm-premium-subjects': () => import('../content/blog/pumpswap-raydium-cpmm-premium-subjects'),
  'building-a-trading-bot-with-tradewind': () => import('../content/blog/building-a-trading-bot-with-tradewind'),
};

/** schema.org objects of an article page: Article, BreadcrumbList and, with questions, FAQPage. */
export function articleJsonLd(post: BlogPostMeta, faq: readonly FaqEntry[] | undefined): object[] {
  const path = `/blog/${post.slug}`;
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

function ArticlePage({ post, module }: { post: BlogPostMeta; module: ArticleModule }) {
  const path = `/blog/${post.slug}`;
  return (
    <article className="blog-article">
      <Seo title={post.title} description={post.description} path={path} ogType="article" jsonLd={articleJsonLd(post, module.faq)} />
      <div className="container blog-article-container">
        <ArticleHeader post={post} />
        <div className="blog-article-layout">
          <TableOfContents module={module} />
          <div className="blog-article-main">
            <ArticleContent module={module} />
            <aside className="card blog-cta" aria-labelledby="blog-cta-heading">
              <h2 id="blog-cta-heading">Try it on your own stream</h2>
              <p>
                The Starter plan is free and carries every Pump.fun and LetsBonk.fun trade. Sign in, copy your
                credentials from the dashboard and run the samples above.
              </p>
              <p className="blog-cta-actions">
                <Link className="btn btn-primary" to="/login">Sign up free</Link>
                <Link className="btn btn-secondary" to="/pricing">Compare plans</Link>
                <Link className="btn btn-ghost" to="/dashboard/docs">Read the API docs</Link>
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
      <nav aria-label="Breadcrumb" className="blog-breadcrumb">
        <ol>
          <li><Link to="/">Home</Link></li>
          <li><Link to="/blog">Blog</Link></li>
          <li aria-current="page">{post.title}</li>
        </ol>
      </nav>
      <h1>{post.title}</h1>
      <PostMeta post={post} />
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
      <Seo title={post.title} description={post.description} path={`/blog/${post.slug}`} ogType="article" jsonLd={articleJsonLd(post, undefined)} />
      <ArticleHeader post={post} />
      <p role="status" className="muted">
        <span className="spinner" aria-hidden="true" /> Loading the article…
      </p>
    </div>
  );
}

/** `/blog/:slug`: the article, or the not-found page (noindex) for an unknown slug. */
export default function BlogArticle() {
  const { slug = '' } = useParams();
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
