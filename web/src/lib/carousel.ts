/**
 * State and timing of the home page's blog carousel: autoplay every {@link AUTOPLAY_MS}, a pause
 * of {@link MANUAL_PAUSE_MS} after any manual action (button, dot, key, swipe, drag), a swipe or
 * drag threshold of {@link SWIPE_THRESHOLD_PX}, a user pause/play switch, and no autoplay when the
 * user prefers reduced motion.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

/** Time a slide stays before autoplay moves on (ms). */
export const AUTOPLAY_MS = 8000;
/** Autoplay stays off for this long after a manual action, then resumes with a full interval (ms). */
export const MANUAL_PAUSE_MS = 15000;
/** A swipe or drag changes slide only when its horizontal distance is strictly greater than this (px). */
export const SWIPE_THRESHOLD_PX = 50;

/** Index after `index` among `count` slides, wrapping to 0; 0 when there are no slides. */
export function nextIndex(index: number, count: number): number {
  return count <= 0 ? 0 : (index + 1) % count;
}

/** Index before `index` among `count` slides, wrapping to the last; 0 when there are no slides. */
export function prevIndex(index: number, count: number): number {
  return count <= 0 ? 0 : (index - 1 + count) % count;
}

/**
 * What a horizontal gesture from `startX` to `endX` (px) does: 'next' for a move left of more than
 * {@link SWIPE_THRESHOLD_PX}, 'prev' for a move right of more than it, null otherwise (exactly
 * 50 px does nothing; 51 px does).
 */
export function swipeAction(startX: number, endX: number, threshold = SWIPE_THRESHOLD_PX): 'next' | 'prev' | null {
  const dx = endX - startX;
  if (Math.abs(dx) <= threshold) return null;
  return dx < 0 ? 'next' : 'prev';
}

/** Whether the user asks for reduced motion (false where `matchMedia` does not exist, e.g. prerender). */
export function prefersReducedMotion(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-reduced-motion: reduce)').matches : false;
}

export interface CarouselOptions {
  count: number;
  autoplayMs?: number;
  manualPauseMs?: number;
  /** Overrides the `prefers-reduced-motion` media query (tests). */
  reducedMotion?: boolean;
}

export interface CarouselState {
  index: number;
  /** Autoplay is running now (not paused by the user, by reduced motion, or by a recent manual action). */
  autoplaying: boolean;
  /** The user's pause/play switch: false after they pressed pause (or when reduced motion is preferred). */
  playing: boolean;
  /** Reduced motion is preferred: autoplay starts off; the user may still press play. */
  reducedMotion: boolean;
  /** Manual moves: each pauses autoplay for `manualPauseMs`. */
  next(): void;
  prev(): void;
  goTo(index: number): void;
  /** Turns autoplay on or off (the visible pause/play control). */
  setPlaying(playing: boolean): void;
}

/**
 * The carousel's state. Autoplay advances one slide every `autoplayMs` (8000) while
 * {@link CarouselState.autoplaying}; a manual move restarts that wait only after `manualPauseMs`
 * (15000), so the next automatic move comes `manualPauseMs + autoplayMs` after the last manual one.
 * All timers are cleared on unmount.
 */
export function useCarousel({ count, autoplayMs = AUTOPLAY_MS, manualPauseMs = MANUAL_PAUSE_MS, reducedMotion: forced }: CarouselOptions): CarouselState {
  const [index, setIndex] = useState(0);
  const [playing, setPlayingState] = useState(forced !== true);
  const [reducedMotion, setReducedMotion] = useState(forced === true);
  const [manualPause, setManualPause] = useState(false);
  // Timers live in refs and are chained directly (not through re-renders), so the timing is exact.
  const interval = useRef<ReturnType<typeof setInterval> | null>(null);
  const pause = useRef<ReturnType<typeof setTimeout> | null>(null);
  const playingRef = useRef(playing);
  useEffect(() => {
    playingRef.current = playing;
  }, [playing]);

  const stopInterval = useCallback(() => {
    if (interval.current !== null) clearInterval(interval.current);
    interval.current = null;
  }, []);
  const stopPause = useCallback(() => {
    if (pause.current !== null) clearTimeout(pause.current);
    pause.current = null;
  }, []);
  const startInterval = useCallback(() => {
    stopInterval();
    if (count > 1) interval.current = setInterval(() => setIndex((i) => nextIndex(i, count)), autoplayMs);
  }, [stopInterval, count, autoplayMs]);

  // Read the media query after mount, so the prerendered HTML and the first client render agree.
  useEffect(() => {
    const reduced = forced ?? prefersReducedMotion();
    setReducedMotion(reduced);
    if (reduced) setPlayingState(false);
  }, [forced]);

  // Autoplay follows the pause/play switch (unless a manual pause is running: it restarts it itself).
  useEffect(() => {
    if (playing && pause.current === null) startInterval();
    else if (!playing) stopInterval();
    return stopInterval;
  }, [playing, startInterval, stopInterval]);

  useEffect(() => stopPause, [stopPause]);

  const manual = useCallback(
    (move: (i: number) => number) => {
      setIndex(move);
      stopInterval();
      stopPause();
      setManualPause(true);
      pause.current = setTimeout(() => {
        pause.current = null;
        setManualPause(false);
        if (playingRef.current) startInterval();
      }, manualPauseMs);
    },
    [stopInterval, stopPause, startInterval, manualPauseMs],
  );

  return {
    index: count > 0 ? Math.min(index, count - 1) : 0,
    autoplaying: playing && !manualPause && count > 1,
    playing,
    reducedMotion,
    next: useCallback(() => manual((i) => nextIndex(i, count)), [manual, count]),
    prev: useCallback(() => manual((i) => prevIndex(i, count)), [manual, count]),
    goTo: useCallback((target: number) => manual(() => Math.max(0, Math.min(count - 1, target))), [manual, count]),
    setPlaying: useCallback(
      (p: boolean) => {
        stopPause();
        setManualPause(false);
        setPlayingState(p);
      },
      [stopPause],
    ),
  };
}
