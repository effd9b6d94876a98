/**
 * token-price's public HTTP API as data (issue 23): `GET /api/birdeye/tokens` and `GET /api/trades/tape`
 * with zod schemas of their queries and responses, the source of its part of `GET /api/openapi.json`
 * (scripts/openapi.ts). http/routes.ts validates `limit` with {@link limitSchema};
 * services/token-price/test/openapi.int.test.ts checks that the schema and the live route agree.
 */
import { z } from 'zod';
import { DEFAULT_ERROR_RESPONSE, ErrorBodySchema, type ApiDeclaration } from '@tradewind/lib';
import { TokenPriceConfigSchema } from '../config.js';

/** The query's `limit` for a largest page of `maxLimit` rows (TOKENS_MAX_LIMIT): 1 … maxLimit, digits only. */
export function limitSchema(maxLimit: number) {
  return z
    .string()
    .regex(/^\d{1,6}$/)
    .refine((v) => Number(v) >= 1 && Number(v) <= maxLimit, { message: `limit must be an integer from 1 to ${maxLimit}` })
    .meta({ description: `Rows, 1 to ${maxLimit} (TOKENS_MAX_LIMIT; default TOKENS_LIMIT)` });
}

/** One ticker row (domain/window.ts TokenRow). USD figures are null without a SOL/USD rate. */
export const TokenRowSchema = z
  .object({
    mint: z.string().describe('SPL mint address (base58)'),
    symbol: z.string().nullable(),
    name: z.string().nullable(),
    price: z.number().nullable().describe('USD per whole token'),
    marketCap: z.number().nullable().describe('USD'),
    volume: z.number().nullable().describe('USD traded in 24 h'),
    change: z.number().nullable().describe('Price change over 24 h, percent'),
    timestamp: z.number().nullable().describe('Last trade, Unix ms'),
    priceSol: z.number().nullable(),
    marketCapSol: z.number().nullable(),
    volumeSol: z.number().nullable(),
    usdSource: z.enum(['stream', 'config', 'birdeye']).nullable(),
    solUsd: z.number().nullable().describe('USD per SOL used for the USD figures'),
    solUsdObservedAt: z.number().nullable().describe('Unix ms'),
    replayed: z.boolean().describe('From a replayed recording (local stack), not live trades'),
    recordedAt: z.number().nullable().describe('Replayed rows: chain time of the latest recorded trade, Unix ms'),
  })
  .describe('A token of the live ticker');

/** Path of the live trade tape (Server-Sent Events; deploy/routes.json routes it here, Exact). */
export const TAPE_PATH = '/api/trades/tape';

/** One event of the tape: the `data:` of one SSE message (domain/tape.ts TapeEvent). */
export const TapeEventSchema = z
  .object({
    seq: z.int().describe('TRADES stream sequence'),
    subject: z.enum(['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium']).describe('The TRADES subject'),
    transaction_type: z.string().describe('BUY, SELL, SWAP, CREATE_POOL, DEPOSIT or WITHDRAW'),
    side: z.enum(['buy', 'sell']).nullable().describe('When the message states one'),
    mint: z.string().describe('The token traded (base58)'),
    symbol: z.string().nullable().describe("The token's symbol when token-price knows it"),
    name: z.string().nullable().describe("The token's name when token-price knows it"),
    sol_amount: z.number().describe('SOL moved by the trade, SOL'),
    signature: z.string().describe('Transaction signature (base58)'),
    block_time_ms: z.number().nullable().describe('Block time, Unix ms'),
    replayed: z.boolean().describe('A copy replayed from a recording (local stack), not a live trade'),
    recorded_at: z.number().nullable().describe('Replayed copies: chain time of the recorded trade, Unix ms; null for live trades'),
  })
  .describe('One trade of the live tape: the JSON after `data: ` of one event');

/** token-price's declaration for a largest page of `maxLimit` (default: TOKENS_MAX_LIMIT's default). */
export function tokenPriceApi(maxLimit: number = TokenPriceConfigSchema.shape.TOKENS_MAX_LIMIT.parse(undefined)): ApiDeclaration {
  return {
    service: 'token-price',
    tag: { name: 'tokens', description: 'The live token ticker (services/token-price)' },
    components: { TokenRow: TokenRowSchema, TapeEvent: TapeEventSchema },
    defaultResponse: DEFAULT_ERROR_RESPONSE,
    routes: [
      {
        method: 'get',
        path: '/api/birdeye/tokens',
        operationId: 'listTokens',
        summary: 'The most traded tokens of the last 24 h',
        security: [],
        query: z.object({ limit: limitSchema(maxLimit).optional() }),
        responses: {
          200: { description: 'The rows, most traded first', body: z.object({ success: z.literal(true), data: z.array(TokenRowSchema) }) },
          400: { description: 'A bad limit (code invalid_argument)', body: ErrorBodySchema },
          500: { description: 'exactly {"status":500,"message":"Failed to fetch token data"}', body: ErrorBodySchema },
        },
      },
      {
        method: 'get',
        path: TAPE_PATH,
        operationId: 'streamTradeTape',
        summary: 'Live trades as Server-Sent Events, at most TAPE_MAX_EVENTS_PER_S per second',
        description:
          'A stream that stays open: one `data: <TapeEvent JSON>` event per trade, the newest when trades come faster than TAPE_MAX_EVENTS_PER_S (the rest are dropped), the latest few at once on connect, and a `: heartbeat` comment every TAPE_HEARTBEAT_MS. Public and read-only; for trading use the WebSocket or NATS streams.',
        security: [],
        responses: {
          200: {
            description: 'The event stream (text/event-stream)',
            contentType: 'text/event-stream',
            body: z.string().describe('Server-Sent Events; each data line is a TapeEvent'),
          },
          429: {
            description: 'code resource_exhausted: TAPE_MAX_CONNECTIONS or TAPE_MAX_CONNECTIONS_PER_IP open tapes',
            body: ErrorBodySchema,
            headers: { 'Retry-After': 'Seconds to wait (TAPE_RETRY_AFTER_S)' },
          },
        },
      },
    ],
  };
}
