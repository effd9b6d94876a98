import { describe, expect, it } from 'vitest';
import { Receiver } from 'ws';
import { controlFrame, textFrame, tradeFrame } from './frame.js';

/** Decodes server frames with ws's own parser (the client side of RFC 6455): the messages they carry. */
function parse(frame: Buffer): string[] {
  const out: string[] = [];
  const receiver = new Receiver({ isServer: false });
  receiver.on('message', (data: Buffer) => out.push(data.toString('utf8')));
  receiver.write(frame);
  return out;
}

describe('frame', () => {
  it('when a trade is framed, then its seq is the first key and the rest are the published bytes, for every length encoding', () => {
    for (const size of [10, 125, 126, 1000, 65_535, 65_536, 200_000]) {
      const body = JSON.stringify({ source: 'pumpfun', pad: 'x'.repeat(Math.max(0, size - 30)) });
      const [text] = parse(tradeFrame(48_213, Buffer.from(body)));
      expect(text).toBe(`{"seq":48213,${body.slice(1)}`);
      expect(JSON.parse(text!)).toMatchObject({ seq: 48_213, source: 'pumpfun' });
    }
  });

  it('when the payload is an empty object or not an object, then the frame is still valid JSON text', () => {
    expect(parse(tradeFrame(7, Buffer.from('{}')))).toEqual(['{"seq":7}']);
    expect(parse(tradeFrame(7, Buffer.from('[1]')))).toEqual(['[1]']);
    expect(parse(controlFrame({ type: 'heartbeat', seq: 3 }))).toEqual(['{"type":"heartbeat","seq":3}']);
    expect(parse(textFrame(Buffer.from('ü')))).toEqual(['ü']);
  });
});
