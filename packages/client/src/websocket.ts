/**
 * The WebSocket the client uses: any constructor with the standard (WHATWG) interface — the
 * global one of browsers and Node ≥ 22, the `ws` package on older Node, or one a test injects.
 */

/** The part of the standard WebSocket interface the client uses. */
export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** A WebSocket constructor: `new WebSocket(url)`. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/**
 * `globalThis.WebSocket` when the platform has one, else the `ws` package (a dependency, loaded
 * only then so browsers and Node ≥ 22 never load it).
 * @throws Error when neither is available.
 */
export async function defaultWebSocket(): Promise<WebSocketConstructor> {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (typeof global === 'function') return global;
  try {
    const mod = (await import('ws')) as unknown as { default?: WebSocketConstructor; WebSocket?: WebSocketConstructor };
    const ctor = mod.default ?? mod.WebSocket;
    if (typeof ctor === 'function') return ctor;
  } catch (err) {
    throw new Error('no WebSocket implementation: this platform has no global WebSocket and the "ws" package cannot be loaded', { cause: err });
  }
  throw new Error('the "ws" package exports no WebSocket constructor');
}

/** Text of a message event's `data` (servers send text frames; binary ones are decoded as UTF-8). */
export function messageText(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return undefined;
}
