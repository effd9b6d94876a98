import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// Testing Library unmounts after each test only with vitest globals; this project keeps them off.
afterEach(() => cleanup());
