/**
 * The RPC metadata resolver against a local node:http server that speaks Solana JSON-RPC 2.0
 * (`POST`, `getMultipleAccounts` → `{jsonrpc: "2.0", id, result: {context: {slot}, value: [...]}}`,
 * `null` for missing accounts, JSON-RPC error objects for unknown methods / bad params), backed
 * by a map of accounts in the `jsonParsed` shapes an Agave node returns.
 *
 * Fixture provenance:
 * - KODAMA0 (SPL mint + Metaplex metadata): the 679 bytes of the real Metaplex metadata account
 *   FtCkYkLhZPGuNo74ppS4DJMMmF51g3bTmjNTmFBv5qCn (owner metaqbxx…, lamports 5616720) of mint
 *   8RmyhyzqUGxBLpRsREiPn4VNAdV1zPcdjAhid2L4qToC, as recorded in a Metaplex storefront unit test
 *   of `METADATA_PROCESSOR` (it imports './processMetaData' and '../models', i.e. it sits next to
 *   metaplex-foundation/metaplex `js/packages/common/src/contexts/meta/processMetaData.ts`; the
 *   public code index returned its text but not the repository/commit of that copy).
 *   That test decodes it to name 'KODAMA0', symbol 'KODAMA', update authority
 *   AwaQ2ms2pcgV82AWRdtwRxHv7XTSussEtRX5jBjySzSA. The same file is our real mint → metadata PDA
 *   pair. The mint account itself (decimals 0, supply 1) is written by hand in the agave
 *   `UiMint` shape: no recorded answer for it was found.
 * - USDP (Token-2022 with tokenMetadata extension): the extension values (name 'Pax Dollar',
 *   symbol 'USDP', uri, update authority, metadataPointer) of the real mainnet mint
 *   HVbpJAQGNpkgBaYBZQBR1t7yFdvaYVp2vCQQfKKEN4tM, written down (as TypeScript literal types) from
 *   a `getMultipleParsedAccounts` answer in jup-ag/terminal
 *   `src/components/SuggestionTags/hooks/useQueryTokenMetadata.tsx`
 *   @0c280dc8e62fad3c43675d198e06c30cc50ab93e. That file records neither supply nor decimals, so
 *   those two values here are made up. No full recorded jsonParsed Token-2022 answer
 *   was found, so the envelope follows agave `account-decoder-client-types/src/token.rs`
 *   @0fde215ab05d67de9a5dfa378d9f20f311a0b06b (`UiMint`, `UiExtension` tag "extension"/"state").
 * - Everything else (synthetic mints, Metaplex accounts for the edge cases) is built from the
 *   documented layouts (mpl-token-metadata `state/metadata.rs`), not recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createRpcMetadataResolver,
  MAX_NAME_CHARS,
  MAX_SYMBOL_CHARS,
  MetadataError,
  METAPLEX_TOKEN_METADATA_PROGRAM_ID,
  metaplexMetadataAddress,
  type MetadataErrorKind,
} from './solana-metadata.js';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

// ---- real fixtures -------------------------------------------------------------------------

const KODAMA_MINT = '8RmyhyzqUGxBLpRsREiPn4VNAdV1zPcdjAhid2L4qToC';
const KODAMA_METADATA = 'FtCkYkLhZPGuNo74ppS4DJMMmF51g3bTmjNTmFBv5qCn';
/** Real Metaplex Metadata account data of KODAMA_METADATA (679 bytes), see the file header. */
const KODAMA_METADATA_BASE64 =
  'BJO0TufRLmWMqmrCA69/bs3EZj/i9OcVaXW9TSlIqTffblqatqp30tXRk20NlZfnq007cBSAvK7sVC1tPF+4tu8gAAAAS09E' +
  'QU1BMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAKAAAAS09EQU1BAAAAAMgAAABodHRwczovL2Fyd2VhdmUubmV0L0VmMm0z' +
  'ZW1PMEcteVpZZ2VsTldKZV9JNnhRbTNzMTctNzBGdTF4dTVVZGMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAGQAAQQAAABRUnRE0T15gEbTJpg9ZItNPMAroZZugDoQr9vMZwNd8QEA' +
  'k7RO59EuZYyqasIDr39uzcRmP+L05xVpdb1NKUipN98AWvthtjd6f7Myxzn9rMX8P1+UbbINmTwtH7nI4LHOvzlnAAL1/+d8' +
  'lIFbUmHO3MuNMYZyppGEClqCjXwkiZNvfkwbHAAIAQEB/wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==';

const USDP_MINT = 'HVbpJAQGNpkgBaYBZQBR1t7yFdvaYVp2vCQQfKKEN4tM';
const USDP_AUTHORITY = '2apBGMsS6ti9RyF5TwQTDswXBWskiJP2LD4cUEDqYJjk';

// ---- account builders (jsonParsed shapes of agave's UiAccount / UiMint) --------------------

type Account = Record<string, unknown>;

/** A synthetic, valid base58 address. */
function address(seed: number): string {
  return new PublicKey(Buffer.alloc(32, seed)).toBase58();
}

function mintAccount(options: { program?: 'spl-token' | 'spl-token-2022'; decimals: unknown; supply: unknown; extensions?: unknown }): Account {
  const program = options.program ?? 'spl-token';
  const info: Record<string, unknown> = {
    decimals: options.decimals,
    freezeAuthority: null,
    isInitialized: true,
    mintAuthority: null,
    supply: options.supply,
  };
  if (options.extensions !== undefined) info['extensions'] = options.extensions;
  return {
    data: { parsed: { info, type: 'mint' }, program, space: program === 'spl-token' ? 82 : 600 },
    executable: false,
    lamports: 1461600,
    owner: program === 'spl-token' ? TOKEN_PROGRAM : TOKEN_2022_PROGRAM,
    rentEpoch: 361,
    space: program === 'spl-token' ? 82 : 600,
  };
}

function binaryAccount(owner: string, base64: string, space?: number): Account {
  return {
    data: [base64, 'base64'],
    executable: false,
    lamports: 5616720,
    owner,
    rentEpoch: 361,
    space: space ?? Buffer.from(base64, 'base64').length,
  };
}

function tokenMetadataExtension(name: string, symbol: string, mint: string): Record<string, unknown> {
  return {
    extension: 'tokenMetadata',
    state: { additionalMetadata: [], mint, name, symbol, updateAuthority: null, uri: 'https://example.invalid/m.json' },
  };
}

/** Borsh `String`: u32 LE byte length + UTF-8, padded with NULs to `padTo` bytes like the program does. */
function borshString(value: string, padTo = 0): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const padded = Buffer.concat([bytes, Buffer.alloc(Math.max(0, padTo - bytes.length))]);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(padded.length);
  return Buffer.concat([length, padded]);
}

/**
 * Metaplex `Metadata` account bytes built from the documented layout (mpl-token-metadata
 * `state/metadata.rs`): key, update_authority, mint, Data{name, symbol, uri,
 * seller_fee_basis_points, creators}, primary_sale_happened, is_mutable, edition_nonce,
 * token_standard, collection, uses, collection_details, programmable_config.
 */
function metaplexAccountBytes(options: { mint: string; name: string; symbol: string; key?: number }): Buffer {
  return Buffer.concat([
    Buffer.from([options.key ?? 4]),
    new PublicKey(address(7)).toBuffer(),
    new PublicKey(options.mint).toBuffer(),
    borshString(options.name, 32),
    borshString(options.symbol, 10),
    borshString('https://example.invalid/meta.json', 200),
    Buffer.from([0, 0]), // seller_fee_basis_points
    Buffer.from([0]), // creators: None
    Buffer.from([0, 1]), // primary_sale_happened, is_mutable
    Buffer.from([1, 254]), // edition_nonce: Some(254)
    Buffer.from([1, 2]), // token_standard: Some(Fungible)
    Buffer.from([0, 0, 0, 0]), // collection, uses, collection_details, programmable_config: None
  ]);
}

// ---- the fake RPC node ---------------------------------------------------------------------

/** Accounts of the fake chain, by address. */
const chain = new Map<string, Account>();
/** Parsed JSON-RPC requests received, in order. */
const received: Array<{ method: string | undefined; contentType: string | undefined; body: unknown }> = [];
/** Overrides the protocol handler for one test (HTTP errors, silence, garbage). */
let override: ((req: IncomingMessage, res: ServerResponse, body: unknown) => void) | undefined;

let server: Server;
let rpcUrl: string;

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(payload));
}

/** Solana JSON-RPC 2.0 over HTTP POST, `getMultipleAccounts` only. */
function answer(res: ServerResponse, body: unknown): void {
  if (typeof body !== 'object' || body === null || (body as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
    sendJson(res, 200, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
    return;
  }
  const { id, method, params } = body as { id: unknown; method: unknown; params: unknown };
  if (method !== 'getMultipleAccounts') {
    sendJson(res, 200, { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id });
    return;
  }
  const keys = Array.isArray(params) ? params[0] : undefined;
  if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) {
    sendJson(res, 200, { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params' }, id });
    return;
  }
  const value = (keys as string[]).map((key) => chain.get(key) ?? null);
  sendJson(res, 200, { jsonrpc: '2.0', result: { context: { apiVersion: '2.2.14', slot: 341197247 }, value }, id });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        sendJson(res, 200, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
        return;
      }
      received.push({ method: req.method, contentType: req.headers['content-type'], body });
      if (override) override(req, res, body);
      else if (req.method !== 'POST') sendJson(res, 405, { error: 'method not allowed' });
      else answer(res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rpcUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  chain.clear();
  received.length = 0;
  override = undefined;
});

function resolver(timeoutMs = 5_000) {
  return createRpcMetadataResolver({ rpcUrl, timeoutMs });
}

async function failure(promise: Promise<unknown>, kind: MetadataErrorKind): Promise<MetadataError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MetadataError);
  expect((err as MetadataError).kind).toBe(kind);
  return err as MetadataError;
}

// ---- tests ---------------------------------------------------------------------------------

describe('metaplexMetadataAddress', () => {
  it('derives the real PDA of a real mint (Metaplex storefront fixture)', () => {
    expect(metaplexMetadataAddress(KODAMA_MINT)).toBe(KODAMA_METADATA);
  });

  it('rejects a string that is not an address', () => {
    expect(() => metaplexMetadataAddress('not-a-mint')).toThrow(TypeError);
  });
});

describe('createRpcMetadataResolver', () => {
  it('sends one getMultipleAccounts of [mint, metadata PDA] with jsonParsed/confirmed', async () => {
    chain.set(KODAMA_MINT, mintAccount({ decimals: 0, supply: '1' }));
    await resolver().resolve(KODAMA_MINT);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.contentType).toBe('application/json');
    expect(request?.body).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      method: 'getMultipleAccounts',
      params: [[KODAMA_MINT, KODAMA_METADATA], { encoding: 'jsonParsed', commitment: 'confirmed' }],
    });
  });

  it('reads name and symbol of an SPL mint from its real Metaplex account, NUL padding stripped', async () => {
    chain.set(KODAMA_MINT, mintAccount({ decimals: 0, supply: '1' }));
    chain.set(KODAMA_METADATA, binaryAccount(METAPLEX_TOKEN_METADATA_PROGRAM_ID, KODAMA_METADATA_BASE64, 679));
    await expect(resolver().resolve(KODAMA_MINT)).resolves.toEqual({
      mint: KODAMA_MINT,
      name: 'KODAMA0',
      symbol: 'KODAMA',
      decimals: 0,
      supplyRaw: 1n,
    });
  });

  it('reads a Token-2022 mint from its tokenMetadata extension (USDP)', async () => {
    chain.set(
      USDP_MINT,
      mintAccount({
        program: 'spl-token-2022',
        decimals: 6,
        supply: '19731041561012',
        extensions: [
          { extension: 'mintCloseAuthority', state: { closeAuthority: USDP_AUTHORITY } },
          {
            extension: 'confidentialTransferMint',
            state: { auditorElgamalPubkey: null, authority: USDP_AUTHORITY, autoApproveNewAccounts: false },
          },
          { extension: 'transferHook', state: { authority: USDP_AUTHORITY, programId: null } },
          { extension: 'metadataPointer', state: { authority: USDP_AUTHORITY, metadataAddress: USDP_MINT } },
          {
            extension: 'tokenMetadata',
            state: {
              additionalMetadata: [],
              mint: USDP_MINT,
              name: 'Pax Dollar',
              symbol: 'USDP',
              updateAuthority: USDP_AUTHORITY,
              uri: 'https://token-metadata.paxos.com/usdp_metadata/prod/solana/usdp_metadata.json',
            },
          },
          { extension: 'permanentDelegate', state: { delegate: USDP_AUTHORITY } },
        ],
      }),
    );
    await expect(resolver().resolve(USDP_MINT)).resolves.toEqual({
      mint: USDP_MINT,
      name: 'Pax Dollar',
      symbol: 'USDP',
      decimals: 6,
      supplyRaw: 19731041561012n,
    });
  });

  it('prefers the Token-2022 extension over a Metaplex account', async () => {
    const mint = address(21);
    chain.set(
      mint,
      mintAccount({
        program: 'spl-token-2022',
        decimals: 6,
        supply: '1000000000000000',
        extensions: [{ extension: 'immutableOwner' }, tokenMetadataExtension('Extension Name', 'EXT', mint)],
      }),
    );
    const metaplex = metaplexAccountBytes({ mint, name: 'Metaplex Name', symbol: 'MPL' });
    chain.set(metaplexMetadataAddress(mint), binaryAccount(METAPLEX_TOKEN_METADATA_PROGRAM_ID, metaplex.toString('base64')));
    const got = await resolver().resolve(mint);
    expect(got).toMatchObject({ name: 'Extension Name', symbol: 'EXT' });
  });

  it('falls back to Metaplex for a Token-2022 mint whose extension has empty names', async () => {
    const mint = address(22);
    chain.set(mint, mintAccount({ program: 'spl-token-2022', decimals: 9, supply: '5', extensions: [tokenMetadataExtension(' ', '', mint)] }));
    const metaplex = metaplexAccountBytes({ mint, name: 'From Metaplex', symbol: 'FMP' });
    chain.set(metaplexMetadataAddress(mint), binaryAccount(METAPLEX_TOKEN_METADATA_PROGRAM_ID, metaplex.toString('base64')));
    await expect(resolver().resolve(mint)).resolves.toMatchObject({ name: 'From Metaplex', symbol: 'FMP', decimals: 9 });
  });

  it('trims and caps name at 64 and symbol at 16 characters (code points)', async () => {
    const mint = address(23);
    const longName = '  ' + '🚀'.repeat(70) + '  ';
    const longSymbol = '\tPUMPPUMPPUMPPUMPPUMP\n';
    chain.set(
      mint,
      mintAccount({
        program: 'spl-token-2022',
        decimals: 6,
        supply: '1000000000000000',
        extensions: [tokenMetadataExtension(longName, longSymbol, mint)],
      }),
    );
    const got = await resolver().resolve(mint);
    expect(Array.from(got?.name ?? '')).toHaveLength(MAX_NAME_CHARS);
    expect(got?.name).toBe('🚀'.repeat(64));
    expect(got?.symbol).toBe('PUMPPUMPPUMPPUMP');
    expect(got?.symbol).toHaveLength(MAX_SYMBOL_CHARS);
  });

  it('returns null names but decimals and supply for a mint without metadata', async () => {
    const mint = address(24);
    chain.set(mint, mintAccount({ decimals: 9, supply: '18446744073709551615' }));
    await expect(resolver().resolve(mint)).resolves.toEqual({
      mint,
      name: null,
      symbol: null,
      decimals: 9,
      supplyRaw: 18446744073709551615n,
    });
  });

  it('ignores an account at the PDA that the Metaplex program does not own', async () => {
    const mint = address(25);
    chain.set(mint, mintAccount({ decimals: 6, supply: '10' }));
    chain.set(metaplexMetadataAddress(mint), binaryAccount(SYSTEM_PROGRAM, ''));
    await expect(resolver().resolve(mint)).resolves.toMatchObject({ name: null, symbol: null, supplyRaw: 10n });
  });

  it('returns null for a mint account that does not exist', async () => {
    await expect(resolver().resolve(address(26))).resolves.toBeNull();
  });

  it('returns null for accounts that are not mints', async () => {
    const tokenAccount = address(27);
    chain.set(tokenAccount, {
      data: {
        parsed: {
          info: {
            isNative: false,
            mint: KODAMA_MINT,
            owner: address(28),
            state: 'initialized',
            tokenAmount: { amount: '1', decimals: 0, uiAmount: 1, uiAmountString: '1' },
          },
          type: 'account',
        },
        program: 'spl-token',
        space: 165,
      },
      executable: false,
      lamports: 2039280,
      owner: TOKEN_PROGRAM,
      rentEpoch: 361,
      space: 165,
    });
    const wallet = address(29);
    chain.set(wallet, binaryAccount(SYSTEM_PROGRAM, ''));
    const r = resolver();
    await expect(r.resolve(tokenAccount)).resolves.toBeNull();
    await expect(r.resolve(wallet)).resolves.toBeNull();
  });

  it('rejects an invalid mint address without calling the RPC', async () => {
    await failure(resolver().resolve('0OIl-not-base58'), 'invalid-mint');
    expect(received).toHaveLength(0);
  });

  it('turns a JSON-RPC error object into MetadataError', async () => {
    override = (_req, res, body) =>
      sendJson(res, 200, {
        jsonrpc: '2.0',
        error: { code: -32005, message: 'Node is behind by 42 slots', data: { numSlotsBehind: 42 } },
        id: (body as { id: unknown }).id,
      });
    const err = await failure(resolver().resolve(KODAMA_MINT), 'rpc');
    expect(err.message).toContain('-32005');
    expect(err.message).toContain('Node is behind by 42 slots');
    expect(err.cause).toMatchObject({ code: -32005 });
  });

  it('turns HTTP 500 into MetadataError', async () => {
    override = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Internal Server Error');
    };
    const err = await failure(resolver().resolve(KODAMA_MINT), 'http');
    expect(err.message).toContain('500');
  });

  it('times out after timeoutMs when the server never answers', async () => {
    override = () => undefined; // hold the request open
    const started = Date.now();
    const err = await failure(resolver(200).resolve(KODAMA_MINT), 'timeout');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3_000);
    expect(err.message).toContain('200 ms');
  });

  it('times out when the body stalls after the headers', async () => {
    override = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0","result":{"context":{"slot":1},"value":[');
    };
    await failure(resolver(200).resolve(KODAMA_MINT), 'timeout');
  });

  it('reports an unreachable RPC', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = createRpcMetadataResolver({ rpcUrl: `http://127.0.0.1:${port}/?api-key=secret`, timeoutMs: 2_000 });
    const err = await failure(r.resolve(KODAMA_MINT), 'unreachable');
    expect(err.message).not.toContain('secret');
  });

  it('uses the fetch it is given', async () => {
    const urls: string[] = [];
    const r = createRpcMetadataResolver({
      rpcUrl,
      timeoutMs: 2_000,
      fetch: (input, init) => {
        urls.push(String(input));
        return fetch(input, init);
      },
    });
    await expect(r.resolve(address(30))).resolves.toBeNull();
    expect(urls).toEqual([rpcUrl]);
  });

  it('rejects bad options', () => {
    expect(() => createRpcMetadataResolver({ rpcUrl: 'ftp://rpc.example', timeoutMs: 1_000 })).toThrow(TypeError);
    expect(() => createRpcMetadataResolver({ rpcUrl: 'not a url', timeoutMs: 1_000 })).toThrow(TypeError);
    expect(() => createRpcMetadataResolver({ rpcUrl, timeoutMs: 0 })).toThrow(TypeError);
  });

  describe('malformed answers are MetadataError', () => {
    const kodamaBytes = Buffer.from(KODAMA_METADATA_BASE64, 'base64');
    const withKodamaMetadata = (data: unknown): void => {
      chain.set(KODAMA_MINT, mintAccount({ decimals: 0, supply: '1' }));
      chain.set(KODAMA_METADATA, { ...binaryAccount(METAPLEX_TOKEN_METADATA_PROGRAM_ID, ''), data });
    };
    const nameLength = (length: number): Buffer => {
      const copy = Buffer.from(kodamaBytes);
      copy.writeUInt32LE(length, 65);
      return copy;
    };

    const cases: Array<[string, () => void]> = [
      ['metadata data that is not base64', () => withKodamaMetadata(['%%%not*base64%%%', 'base64'])],
      ['metadata data in another encoding', () => withKodamaMetadata([KODAMA_METADATA_BASE64, 'base58'])],
      ['borsh truncated inside the name', () => withKodamaMetadata([kodamaBytes.subarray(0, 80).toString('base64'), 'base64'])],
      ['borsh truncated inside the header', () => withKodamaMetadata([kodamaBytes.subarray(0, 40).toString('base64'), 'base64'])],
      ['a name length past the data', () => withKodamaMetadata([nameLength(0xffffffff).toString('base64'), 'base64'])],
      [
        'a name that is not UTF-8',
        () => {
          const copy = Buffer.from(kodamaBytes);
          copy[69] = 0xff;
          withKodamaMetadata([copy.toString('base64'), 'base64']);
        },
      ],
      [
        'an account key other than MetadataV1',
        () => {
          const copy = Buffer.from(kodamaBytes);
          copy[0] = 6; // MasterEditionV2
          withKodamaMetadata([copy.toString('base64'), 'base64']);
        },
      ],
      [
        'metadata recorded for another mint',
        () => {
          const other = metaplexAccountBytes({ mint: address(31), name: 'X', symbol: 'X' });
          withKodamaMetadata([other.toString('base64'), 'base64']);
        },
      ],
      ['a supply that is not a u64 string', () => chain.set(KODAMA_MINT, mintAccount({ decimals: 0, supply: 1 }))],
      ['a supply beyond u64', () => chain.set(KODAMA_MINT, mintAccount({ decimals: 0, supply: '18446744073709551616' }))],
      ['decimals that are not a u8', () => chain.set(KODAMA_MINT, mintAccount({ decimals: 6.5, supply: '1' }))],
      [
        'extensions that are not an array',
        () => chain.set(KODAMA_MINT, mintAccount({ program: 'spl-token-2022', decimals: 6, supply: '1', extensions: { tokenMetadata: {} } })),
      ],
      [
        'a tokenMetadata extension without strings',
        () =>
          chain.set(
            KODAMA_MINT,
            mintAccount({ program: 'spl-token-2022', decimals: 6, supply: '1', extensions: [{ extension: 'tokenMetadata', state: { name: 1 } }] }),
          ),
      ],
      [
        'a value array of the wrong length',
        () => {
          override = (_req, res, body) =>
            sendJson(res, 200, { jsonrpc: '2.0', result: { context: { slot: 1 }, value: [null] }, id: (body as { id: unknown }).id });
        },
      ],
      [
        'a result without value',
        () => {
          override = (_req, res, body) => sendJson(res, 200, { jsonrpc: '2.0', result: null, id: (body as { id: unknown }).id });
        },
      ],
      [
        'an answer to another id',
        () => {
          override = (_req, res) => sendJson(res, 200, { jsonrpc: '2.0', result: { context: { slot: 1 }, value: [null, null] }, id: 999_999 });
        },
      ],
      [
        'a body that is not JSON',
        () => {
          override = (_req, res) => {
            res.writeHead(200, { 'content-type': 'text/html' });
            res.end('<html>gateway</html>');
          };
        },
      ],
    ];

    it.each(cases)('%s', async (_label, arrange) => {
      arrange();
      await failure(resolver().resolve(KODAMA_MINT), 'malformed');
    });
  });
});
