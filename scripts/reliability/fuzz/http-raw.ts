/**
 * A raw HTTP/1.1 client for the HTTP fuzzer: the request line and headers are written byte for byte
 * (no normalisation of `..`, no check of CR/LF in values), so hostile requests reach the server as sent.
 */
import { connect } from 'node:net';

/** What the server answered: status (0 when the connection closed without a status line), headers (lower-case names), body. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** True when no complete answer came within the deadline. */
  readonly timedOut: boolean;
}

/** Decodes a chunked body; the input as is when it is not well-formed chunks. */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < raw.length) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) return raw;
    const size = Number.parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size)) return raw;
    if (size === 0) break;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * Sends one request on a new connection (`Connection: close` appended) to 127.0.0.1:`port` and reads
 * the answer until the server closes; never throws.
 * @param head the request line and headers without the final blank line, e.g. `GET /x HTTP/1.1\r\nHost: a`.
 * @param timeoutMs deadline for the whole exchange, ms.
 */
export function rawRequest(port: number, head: string, body: Buffer | string = '', timeoutMs = 5_000): Promise<RawResponse> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    let done = false;
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const headText = (split < 0 ? all : all.subarray(0, split)).toString('latin1');
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let rawBody: Buffer = split < 0 ? Buffer.alloc(0) : all.subarray(split + 4);
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) rawBody = dechunk(rawBody);
      resolve({ status, headers, body: rawBody.toString('utf8'), timedOut: timedOut && status === 0 });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => {
      const payload = typeof body === 'string' ? Buffer.from(body) : body;
      socket.write(Buffer.concat([Buffer.from(`${head}\r\nConnection: close\r\n\r\n`, 'latin1'), payload]), () => undefined);
    });
  });
}
