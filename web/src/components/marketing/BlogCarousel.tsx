import { useId, useLayoutEffect, useRef, type KeyboardEvent, type MouseEvent, type TouchEvent } from 'react';
import { Link } from 'react-router';
import { articlePath, type BlogPostMeta } from '../../content/blog/posts';
import { swipeAction, useCarousel } from '../../lib/carousel';

export interface BlogCarouselProps {
  posts: readonly BlogPostMeta[];
  /** Overrides the reduced-motion media query (tests). */
  reducedMotion?: boolean;
}

function formatDate(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number);
  const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  return y && m && d ? `${d} ${months[m - 1]} ${y}` : iso;
}

/**
 * The home page's carousel of blog articles (WAI-ARIA carousel pattern): previous/next buttons,
 * one dot per slide, a pause/play control, ArrowLeft/ArrowRight while focus is inside it, touch
 * swipe and mouse drag over 50 px. Each slide shows its date, read time and a 'Read Article' link
 * to the article's `/<slug>` ({@link articlePath}); 'View All Articles' below opens /blog (specification section 2, "Home").
 * Timing rules are in {@link useCarousel}.
 */
export function BlogCarousel({ posts, reducedMotion }: BlogCarouselProps) {
  const c = useCarousel({ count: posts.length, ...(reducedMotion !== undefined ? { reducedMotion } : {}) });
  const id = useId();
  const gesture = useRef<{ x: number; kind: 'touch' | 'mouse' } | null>(null);
  /** Set when a mouse drag changed slide, so the click that ends it does not follow the link. */
  const dragged = useRef(false);
  const track = useRef<HTMLDivElement>(null);
  // The slide offset goes through the CSSOM, not a `style` attribute: the prerendered markup must carry
  // none (the pages' CSP, style-src 'self', refuses them; docs/web.md "Browser security").
  useLayoutEffect(() => {
    if (track.current) track.current.style.transform = `translateX(-${c.index * 100}%)`;
  }, [c.index]);

  if (posts.length === 0) return null;

  const endGesture = (x: number, kind: 'touch' | 'mouse') => {
    const g = gesture.current;
    gesture.current = null;
    if (!g || g.kind !== kind) return;
    const action = swipeAction(g.x, x);
    if (action === 'next') c.next();
    else if (action === 'prev') c.prev();
    if (action && kind === 'mouse') dragged.current = true;
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowRight') c.next();
    else if (e.key === 'ArrowLeft') c.prev();
    else return;
    e.preventDefault();
  };

  return (
    <section className="home-carousel" aria-roledescription="carousel" aria-label="Articles from the blog" onKeyDown={onKeyDown}>
      <div className="home-carousel-controls">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          onClick={() => c.setPlaying(!c.playing)}
          aria-label={c.playing ? 'Pause automatic slide show' : 'Start automatic slide show'}
        >
          {c.playing ? 'Pause' : 'Play'}
        </button>
        <button type="button" className="btn btn-secondary btn-sm" aria-controls={id} aria-label="Previous slide" onClick={c.prev}>
          <span aria-hidden="true">←</span>
        </button>
        <button type="button" className="btn btn-secondary btn-sm" aria-controls={id} aria-label="Next slide" onClick={c.next}>
          <span aria-hidden="true">→</span>
        </button>
      </div>
      <div
        id={id}
        className="home-carousel-viewport"
        aria-live={c.autoplaying ? 'off' : 'polite'}
        data-testid="carousel-viewport"
        onTouchStart={(e: TouchEvent) => {
          const t = e.changedTouches[0];
          if (t) gesture.current = { x: t.clientX, kind: 'touch' };
        }}
        onTouchEnd={(e: TouchEvent) => {
          const t = e.changedTouches[0];
          if (t) endGesture(t.clientX, 'touch');
        }}
        onTouchCancel={() => (gesture.current = null)}
        onMouseDown={(e: MouseEvent) => {
          if (e.button !== 0) return;
          dragged.current = false;
          gesture.current = { x: e.clientX, kind: 'mouse' };
        }}
        onMouseUp={(e: MouseEvent) => endGesture(e.clientX, 'mouse')}
        onMouseLeave={(e: MouseEvent) => {
          if (gesture.current?.kind === 'mouse') endGesture(e.clientX, 'mouse');
        }}
        onClickCapture={(e: MouseEvent) => {
          if (dragged.current) {
            e.preventDefault();
            e.stopPropagation();
            dragged.current = false;
          }
        }}
      >
        <div className="home-carousel-track" ref={track}>
          {posts.map((post, i) => (
            <div
              key={post.slug}
              className="home-carousel-slide"
              role="group"
              aria-roledescription="slide"
              aria-label={`${i + 1} of ${posts.length}`}
              aria-hidden={i !== c.index}
              inert={i !== c.index}
            >
              <article className="card home-carousel-card">
                <p className="home-carousel-meta">
                  <span className="badge">{post.category}</span>{' '}
                  <span className="muted">
                    <time dateTime={post.published}>{formatDate(post.published)}</time> · {post.readingMinutes} min read
                  </span>
                </p>
                <h3 id={`${id}-title-${i}`}>
                  <Link to={articlePath(post.slug)} draggable={false}>
                    {post.title}
                  </Link>
                </h3>
                <p className="muted">{post.description}</p>
                <p>
                  <Link to={articlePath(post.slug)} draggable={false} aria-describedby={`${id}-title-${i}`} data-testid="read-article">
                    Read Article
                  </Link>
                </p>
              </article>
            </div>
          ))}
        </div>
      </div>
      <div className="home-carousel-dots">
        {posts.map((post, i) => (
          <button
            key={post.slug}
            type="button"
            className="home-carousel-dot"
            aria-label={`Go to slide ${i + 1}`}
            aria-current={i === c.index ? 'true' : undefined}
            aria-controls={id}
            onClick={() => c.goTo(i)}
          />
        ))}
      </div>
      {c.reducedMotion && !c.playing ? (
        <p className="muted home-carousel-note">Automatic slide changes are off because your system asks for reduced motion.</p>
      ) : null}
      <p className="home-carousel-all">
        <Link to="/blog" data-testid="view-all-articles">
          View All Articles
        </Link>
      </p>
    </section>
  );
}
