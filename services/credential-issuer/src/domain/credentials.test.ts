import { describe, expect, it } from 'vitest';
import { wsUrlFromNatsUrl } from './credentials.js';

describe('wsUrlFromNatsUrl', () => {
  it('when given the default NATS URL, then maps scheme and port (docs/architecture.md §4)', () => {
    expect(wsUrlFromNatsUrl('nats://localhost:4223')).toBe('ws://localhost:9223');
    expect(wsUrlFromNatsUrl('tls://stream.example.com:4223')).toBe('wss://stream.example.com:9223');
    expect(wsUrlFromNatsUrl('nats://10.0.0.1:5000')).toBe('ws://10.0.0.1:5000');
  });
});
