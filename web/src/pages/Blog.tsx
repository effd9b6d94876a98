import { useSearchParams } from 'react-router';
import { BLOG_CATEGORIES, BLOG_POSTS, type BlogCategory, type BlogPostMeta } from '../content/blog/posts';
import { PostCard } from '../components/blog/PostCard';
import { StayUpdated } from '../components/marketing/StayUpdated';
import { Seo } from '../seo';
import './blog.css';

/** `[category, number of articles]` for every category that has articles, in chip order (BLOG_CATEGORIES). */
export function categoryCounts(posts: readonly BlogPostMeta[]): Array<[BlogCategory, number]> {
  return BLOG_CATEGORIES.map((c): [BlogCategory, number] => [c, posts.filter((p) => p.category === c).length]).filter(([, n]) => n > 0);
}

function isCategory(value: string | null): value is BlogCategory {
  return value !== null && (BLOG_CATEGORIES as readonly string[]).includes(value);
}

/** `/blog`: category chips with counts (kept in `?category=`), the featured article, the grid, and how to follow. */
export default function Blog() {
  const [params, setParams] = useSearchParams();
  const raw = params.get('category');
  const selected = isCategory(raw) ? raw : null;
  const matches = BLOG_POSTS.filter((p) => selected === null || p.category === selected);
  const featured = matches.find((p) => p.featured);
  const rest = matches.filter((p) => p !== featured);

  const select = (category: BlogCategory | null) => {
    const next = new URLSearchParams(params);
    if (category === null) next.delete('category');
    else next.set('category', category);
    setParams(next, { replace: true, preventScrollReset: true });
  };

  return (
    <div className="blog-page">
      <Seo
        title="Blog: Solana trade data API guides, comparisons and WebSocket guides"
        description="API guides for the Pump.fun and LetsBonk.fun streams, a PumpPortal comparison, a Solana WebSocket guide and a memecoin guide, from the team behind Tradewind."
        path="/blog"
      />
      <header className="section blog-hero">
        <div className="container">
          <h1>Tradewind blog</h1>
          <p className="muted blog-lead">
            How to stream Pump.fun and LetsBonk.fun trades, what each decoded field means, what the alternatives cost, and how Solana’s WebSocket API and its
            memecoin market work. Figures are our own measurements or quoted from their source, with dates.
          </p>
          <div className="blog-chips" role="group" aria-label="Filter articles by category">
            <button type="button" className="blog-chip" aria-pressed={selected === null} onClick={() => select(null)}>
              All ({BLOG_POSTS.length})
            </button>
            {categoryCounts(BLOG_POSTS).map(([category, count]) => (
              <button
                key={category}
                type="button"
                className="blog-chip"
                aria-pressed={selected === category}
                onClick={() => select(selected === category ? null : category)}
              >
                {category} ({count})
              </button>
            ))}
          </div>
          <p className="sr-only" role="status" aria-live="polite">
            {selected === null ? `Showing all ${matches.length} articles` : `Showing ${matches.length} ${selected} articles`}
          </p>
        </div>
      </header>

      <div className="container blog-listing">
        {featured ? (
          <section aria-label="Featured article" className="blog-featured">
            <PostCard post={featured} featured />
          </section>
        ) : null}

        {rest.length > 0 ? (
          <section aria-labelledby="blog-articles-heading">
            <h2 id="blog-articles-heading" className="blog-grid-heading">
              {selected === null ? 'All articles' : `${selected}`}
            </h2>
            <div className="blog-grid" data-testid="blog-grid">
              {rest.map((p) => (
                <PostCard key={p.slug} post={p} />
              ))}
            </div>
          </section>
        ) : null}

        <StayUpdated />
      </div>
    </div>
  );
}
