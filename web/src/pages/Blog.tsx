import { Link, useSearchParams } from 'react-router';
import { BLOG_POSTS, type BlogCategory, type BlogPostMeta } from '../content/blog/posts';
import { PostCard } from '../components/blog/PostCard';
import { Seo } from '../seo';
import './blog.css';

/** Category order of the chips (categories without articles get no chip). */
const CATEGORY_ORDER: readonly BlogCategory[] = ['Tutorials', 'Guides', 'Engineering'];

/** `[category, number of articles]` for every category that has articles, in chip order. */
export function categoryCounts(posts: readonly BlogPostMeta[]): Array<[BlogCategory, number]> {
  return CATEGORY_ORDER.map((c): [BlogCategory, number] => [c, posts.filter((p) => p.category === c).length]).filter(
    ([, n]) => n > 0,
  );
}

function isCategory(value: string | null): value is BlogCategory {
  return value !== null && (CATEGORY_ORDER as readonly string[]).includes(value);
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
        title="Blog: Solana trade streaming tutorials and guides"
        description="Tutorials, guides and engineering notes on streaming decoded Pump.fun, LetsBonk.fun, PumpSwap and Raydium CPMM trades with Tradewind over WebSocket and NATS."
        path="/blog"
      />
      <header className="section blog-hero">
        <div className="container">
          <h1>Tradewind blog</h1>
          <p className="muted blog-lead">
            How to connect, what each decoded field means, and how to build consumers that stay correct through
            reconnects and plan changes. Written from the protocol documentation and the project’s own tests.
          </p>
          <div className="blog-chips" role="group" aria-label="Filter articles by category">
            <button
              type="button"
              className="blog-chip"
              aria-pressed={selected === null}
              onClick={() => select(null)}
            >
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

        <section className="card blog-updates" aria-labelledby="blog-updates-heading">
          <h2 id="blog-updates-heading">Stay updated</h2>
          <p>
            New articles appear in the blog’s RSS feed; add it to any feed reader. There is no mailing list, so
            there is nothing to sign up for and no address to hand over.
          </p>
          <p className="blog-updates-actions">
            <a className="btn btn-primary" href="/blog/rss.xml" type="application/rss+xml">
              Subscribe to the RSS feed
            </a>
            <Link className="btn btn-secondary" to="/community">
              Join the community
            </Link>
          </p>
        </section>
      </div>
    </div>
  );
}
