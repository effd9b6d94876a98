import { describe, expect, it } from 'vitest';
import { controlFrame, slotFrame, textFrame, tradeFrame } from './frame.js';

/** Decodes unmasked server frames as RFC 6455 §5.2 lays them out: the text messages they carry. */
function parse(frame: Buffer): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < frame.length) {
    expect(frame[at]).toBe(0x81); // FIN + text
    const len7 = frame[at + 1]! & 0x7f;
    expect(frame[at + 1]! & 0x80).toBe(0); // not masked
    let length = len7;
    let header = 2;
    if (len7 === 126) {
      length = frame.readUInt16BE(at + 2);
      header = 4;
      expect(length).toBeGreaterThanOrEqual(126);
    }
    if (len7 === 127) {
      length = Number(frame.readBigUInt64BE(at + 2));
      header = 10;
      expect(length).toBeGreaterThanOrEqual(65_536);
    }
    out.push(frame.subarray(at + header, at + header + length).toString('utf8'));
    at += header + length;
    expect(at).toBeLessThanOrEqual(frame.length);
  }
  return out;
}

describe('frame', () => {
  it('when a frame is parsed by a real WebSocket client, then it is the same message', async () => {
    const { WebSocketServer, WebSocket } = await import('ws');
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => wss.once('listening', r));
    const got = new Promise<string>((resolve) => {
      const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`);
      client.once('message', (data) => {
        resolve(data.toString());
        client.close();
      });
    });
    wss.once('connection', (_ws, req) => req.socket.write(tradeFrame(9, Buffer.from('{"a":"' + 'y'.repeat(70_000) + '"}'))));
    expect(await got).toBe('{"seq":9,"a":"' + 'y'.repeat(70_000) + '"}');
    await new Promise((r) => wss.close(r));
  });

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

  it('when a slot message is framed for a subscription, then seq and the subscription subject come first and the rest is the published message', () => {
    const body = '{"type":"slot","slot":301,"parent":300,"status":"confirmed","trades":{"basic.pumpfun":2}}';
    const [text] = parse(slotFrame(512, 'basic.pumpfun', Buffer.from(body)));
    expect(text).toBe(`{"seq":512,"subject":"basic.pumpfun",${body.slice(1)}`);
    expect(JSON.parse(text!)).toMatchObject({ seq: 512, subject: 'basic.pumpfun', type: 'slot', status: 'confirmed' });
    expect(parse(slotFrame(3, 'basic.bonk', Buffer.from('{}')))).toEqual(['{"seq":3,"subject":"basic.bonk"}']);
  });
});
