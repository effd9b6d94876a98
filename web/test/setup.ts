import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// Testing Library unmounts after each test only with vitest globals; this project keeps them off.
afterEach(() => cleanup());

// findBy*/waitFor wait for what a test asserts (a route's lazy chunk loaded and rendered), not for how fast it comes:
// speed is measured in benchmarks, never asserted in tests (docs/style.md). Testing Library's default of 1 s is a
// timing assertion in disguise: a fresh-clone CI run on a busy 2-core machine (29 Nov, the whole suite at 31 min)
// failed two such waits (a blog article's heading, the settings form) that pass in 0.3 s on a quiet one. A test that
// waits for something that never comes still fails, after 10 s.
configure({ asyncUtilTimeout: 10_000 });
