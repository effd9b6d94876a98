import { Link } from 'react-router';
import { articlePath, type BlogPostMeta } from '../../content/blog/posts';

/**
 * `2026-11-21` → `21 November 2026`. Formatted in UTC with a fixed locale, so the prerendered
 * HTML and the browser render the same text whatever the visitor's time zone.
 */
export function formatPostDate(isoDate: string): string {
  return new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${isoDate}T00:00:00Z`));
}

/** Category, tags · date · reading time, as shown on cards and article headers. */
export function PostMeta({ post }: { post: BlogPostMeta }) {
  return (
    <p className="blog-meta">
      <span className="badge">{post.category}</span>
      {post.tags.map((t) => (
        <span key={t} className="badge blog-tag">
          {t}
        </span>
      ))}
      <time dateTime={post.published}>{formatPostDate(post.published)}</time>
      <span aria-hidden="true">·</span>
      <span>{post.readingMinutes} min read</span>
    </p>
  );
}

/**
 * One article card: title (a link to the article, `/<slug>`, which also covers the card), category,
 * date, reading time and description. `featured` renders the large variant with an h2 title.
 */
export function PostCard({ post, featured = false }: { post: BlogPostMeta; featured?: boolean }) {
  const Heading = featured ? 'h2' : 'h3';
  return (
    <article className={featured ? 'card blog-card blog-card-featured' : 'card blog-card'} data-testid={`post-card-${post.slug}`}>
      {featured ? <p className="blog-featured-label">Featured article</p> : null}
      <Heading className="blog-card-title">
        <Link to={articlePath(post.slug)} className="blog-card-link">
          {post.title}
        </Link>
      </Heading>
      <PostMeta post={post} />
      <p className="blog-card-description">{post.description}</p>
      <p className="blog-card-more" aria-hidden="true">
        Read the article →
      </p>
    </article>
  );
}
