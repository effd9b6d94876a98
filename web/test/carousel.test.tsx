import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BlogCarousel } from '../src/components/marketing/BlogCarousel';
import { BLOG_POSTS } from '../src/content/blog/posts';
import { AUTOPLAY_MS, MANUAL_PAUSE_MS, nextIndex, prevIndex, swipeAction } from '../src/lib/carousel';

const N = BLOG_POSTS.length;

function current(): number {
  const dots = screen.getAllByRole('button', { name: /^Go to slide \d+$/ });
  const active = dots.filter((d) => d.getAttribute('aria-current') === 'true');
  expect(active).toHaveLength(1);
  return dots.indexOf(active[0]!);
}

function advance(ms: number) {
  act(() => {
    vi.advanceTimersByTime(ms);
  });
}

function renderCarousel(reducedMotion = false) {
  return render(
    <MemoryRouter>
      <BlogCarousel posts={BLOG_POSTS} reducedMotion={reducedMotion} />
    </MemoryRouter>,
  );
}

describe('carousel pure logic', () => {
  it('wraps indices', () => {
    expect(nextIndex(0, 3)).toBe(1);
    expect(nextIndex(2, 3)).toBe(0);
    expect(prevIndex(0, 3)).toBe(2);
    expect(prevIndex(1, 3)).toBe(0);
    expect(nextIndex(0, 0)).toBe(0);
  });
  it('needs strictly more than 50 px', () => {
    expect(swipeAction(200, 150)).toBeNull();
    expect(swipeAction(200, 149)).toBe('next');
    expect(swipeAction(100, 150)).toBeNull();
    expect(swipeAction(100, 151)).toBe('prev');
  });
  it('uses the documented timings', () => {
    expect(AUTOPLAY_MS).toBe(8000);
    expect(MANUAL_PAUSE_MS).toBe(15000);
  });
});

describe('BlogCarousel', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('renders a labelled carousel with one dot per article linking to /<slug>', () => {
    renderCarousel();
    const region = screen.getByRole('region', { name: 'Articles from the blog' });
    expect(region.getAttribute('aria-roledescription')).toBe('carousel');
    expect(screen.getAllByRole('button', { name: /^Go to slide \d+$/ })).toHaveLength(N);
    expect(screen.getByRole('link', { name: BLOG_POSTS[0]!.title }).getAttribute('href')).toBe(`/${BLOG_POSTS[0]!.slug}`);
    expect(current()).toBe(0);
    expect(screen.getByTestId('carousel-viewport').getAttribute('aria-live')).toBe('off');
  });

  it('when a slide shows, then it has its date, read time and a "Read Article" link to /<slug>, and "View All Articles" opens /blog', () => {
    renderCarousel();
    const read = screen.getByRole('link', { name: 'Read Article' });
    expect(read.textContent).toBe('Read Article');
    expect(read.getAttribute('href')).toBe(`/${BLOG_POSTS[0]!.slug}`);
    expect(document.getElementById(read.getAttribute('aria-describedby')!)?.textContent).toBe(BLOG_POSTS[0]!.title);
    const slide = read.closest('[aria-roledescription="slide"]') as HTMLElement;
    expect(slide.querySelector('time')?.getAttribute('dateTime')).toBe(BLOG_POSTS[0]!.published);
    expect(slide.textContent).toContain(`${BLOG_POSTS[0]!.readingMinutes} min read`);
    expect(screen.getByRole('link', { name: 'View All Articles' }).getAttribute('href')).toBe('/blog');
    fireEvent.click(screen.getByRole('button', { name: 'Next slide' }));
    expect(screen.getByRole('link', { name: 'Read Article' }).getAttribute('href')).toBe(`/${BLOG_POSTS[1]!.slug}`);
    // The specification's article paths, literally: the featured guide first, then the comparison.
    expect(read.getAttribute('href')).toBe('/pump-fun-api');
    const second = screen.getByRole('link', { name: 'Read Article' }).closest('[aria-roledescription="slide"]') as HTMLElement;
    expect(screen.getByRole('link', { name: 'Read Article' }).getAttribute('href')).toBe('/tradewind-vs-pumpportal');
    expect(second.textContent).toContain('29 July 2025');
    expect(second.textContent).toContain(`${BLOG_POSTS[1]!.readingMinutes} min read`);
  });

  it('autoplays every 8000 ms, not at 7999 ms', () => {
    renderCarousel();
    advance(7999);
    expect(current()).toBe(0);
    advance(1);
    expect(current()).toBe(1);
    advance(7999);
    expect(current()).toBe(1);
    advance(1);
    expect(current()).toBe(2);
  });

  it('wraps from the last slide to the first', () => {
    renderCarousel();
    advance(AUTOPLAY_MS * N);
    expect(current()).toBe(0);
  });

  it('a manual action pauses autoplay for 15 s, then the 8 s interval resumes', () => {
    renderCarousel();
    advance(5000);
    fireEvent.click(screen.getByRole('button', { name: 'Next slide' }));
    expect(current()).toBe(1);
    expect(screen.getByTestId('carousel-viewport').getAttribute('aria-live')).toBe('polite');
    // No automatic move during the pause, even past the old 8 s tick.
    advance(MANUAL_PAUSE_MS - 1);
    expect(current()).toBe(1);
    advance(1);
    expect(screen.getByTestId('carousel-viewport').getAttribute('aria-live')).toBe('off');
    advance(AUTOPLAY_MS - 1);
    expect(current()).toBe(1);
    advance(1);
    expect(current()).toBe(2);
  });

  it('a second manual action restarts the 15 s pause', () => {
    renderCarousel();
    fireEvent.click(screen.getByRole('button', { name: 'Go to slide 3' }));
    expect(current()).toBe(2);
    advance(10000);
    fireEvent.click(screen.getByRole('button', { name: 'Previous slide' }));
    expect(current()).toBe(1);
    advance(MANUAL_PAUSE_MS + AUTOPLAY_MS - 1);
    expect(current()).toBe(1);
    advance(1);
    expect(current()).toBe(2);
  });

  it('dots go to their slide and carry aria-current', () => {
    renderCarousel();
    fireEvent.click(screen.getByRole('button', { name: `Go to slide ${N}` }));
    expect(current()).toBe(N - 1);
    expect(screen.getByRole('button', { name: `Go to slide ${N}` }).getAttribute('aria-current')).toBe('true');
    expect(screen.getByRole('button', { name: 'Go to slide 1' }).hasAttribute('aria-current')).toBe(false);
  });

  it('touch swipe changes slide only beyond 50 px', () => {
    renderCarousel();
    const viewport = screen.getByTestId('carousel-viewport');
    fireEvent.touchStart(viewport, { changedTouches: [{ clientX: 300 }] });
    fireEvent.touchEnd(viewport, { changedTouches: [{ clientX: 250 }] });
    expect(current()).toBe(0);
    fireEvent.touchStart(viewport, { changedTouches: [{ clientX: 300 }] });
    fireEvent.touchEnd(viewport, { changedTouches: [{ clientX: 249 }] });
    expect(current()).toBe(1);
    fireEvent.touchStart(viewport, { changedTouches: [{ clientX: 100 }] });
    fireEvent.touchEnd(viewport, { changedTouches: [{ clientX: 151 }] });
    expect(current()).toBe(0);
  });

  it('a swipe pauses autoplay like a button', () => {
    renderCarousel();
    const viewport = screen.getByTestId('carousel-viewport');
    fireEvent.touchStart(viewport, { changedTouches: [{ clientX: 300 }] });
    fireEvent.touchEnd(viewport, { changedTouches: [{ clientX: 200 }] });
    expect(current()).toBe(1);
    advance(AUTOPLAY_MS);
    expect(current()).toBe(1);
    advance(MANUAL_PAUSE_MS);
    expect(current()).toBe(2);
  });

  it('mouse drag changes slide only beyond 50 px', () => {
    renderCarousel();
    const viewport = screen.getByTestId('carousel-viewport');
    fireEvent.mouseDown(viewport, { clientX: 100, button: 0 });
    fireEvent.mouseUp(viewport, { clientX: 150 });
    expect(current()).toBe(0);
    fireEvent.mouseDown(viewport, { clientX: 100, button: 0 });
    fireEvent.mouseUp(viewport, { clientX: 151 });
    expect(current()).toBe(N - 1);
    fireEvent.mouseDown(viewport, { clientX: 400, button: 0 });
    fireEvent.mouseUp(viewport, { clientX: 349 });
    expect(current()).toBe(0);
  });

  it('ArrowLeft / ArrowRight move when focus is in the carousel', () => {
    renderCarousel();
    const next = screen.getByRole('button', { name: 'Next slide' });
    next.focus();
    fireEvent.keyDown(next, { key: 'ArrowRight' });
    expect(current()).toBe(1);
    fireEvent.keyDown(next, { key: 'ArrowLeft' });
    fireEvent.keyDown(next, { key: 'ArrowLeft' });
    expect(current()).toBe(N - 1);
  });

  it('the pause control stops autoplay until play is pressed', () => {
    renderCarousel();
    fireEvent.click(screen.getByRole('button', { name: 'Pause automatic slide show' }));
    advance(AUTOPLAY_MS * 3);
    expect(current()).toBe(0);
    expect(screen.getByTestId('carousel-viewport').getAttribute('aria-live')).toBe('polite');
    fireEvent.click(screen.getByRole('button', { name: 'Start automatic slide show' }));
    advance(AUTOPLAY_MS - 1);
    expect(current()).toBe(0);
    advance(1);
    expect(current()).toBe(1);
  });

  it('does not autoplay when reduced motion is preferred', () => {
    renderCarousel(true);
    advance(AUTOPLAY_MS * 3);
    expect(current()).toBe(0);
    expect(screen.getByRole('button', { name: 'Start automatic slide show' })).toBeTruthy();
    expect(screen.getByText(/reduced motion/)).toBeTruthy();
  });

  it('hides the slides not shown from assistive technology', () => {
    renderCarousel();
    const slides = screen.getAllByRole('group', { hidden: true });
    expect(slides).toHaveLength(N);
    expect(slides[0]!.getAttribute('aria-hidden')).toBe('false');
    expect(slides[1]!.getAttribute('aria-hidden')).toBe('true');
    expect(within(slides[0]!).getByRole('heading', { level: 3 }).textContent).toBe(BLOG_POSTS[0]!.title);
  });

  it('stops its timers when unmounted', () => {
    const { unmount } = renderCarousel();
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});
