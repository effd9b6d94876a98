/** gRPC `tradewind.v1.PriceService` (proto/tradewind/v1/prices.proto): the ticker for other services. */
import {
  AppError,
  PriceServiceService,
  UsdSource,
  type ListTokensRequest,
  type ListTokensResponse,
  type PriceServiceServer,
  type PriceToken,
} from '@tradewind/contracts';
import { unary, type Logger } from '@tradewind/lib';
import type { Ticker } from '../ticker.js';
import type { TokenRow, UsdSource as RowUsdSource } from '../domain/window.js';

const SOURCES: Record<Exclude<RowUsdSource, null>, UsdSource> = {
  stream: UsdSource.USD_SOURCE_STREAM,
  config: UsdSource.USD_SOURCE_CONFIG,
  birdeye: UsdSource.USD_SOURCE_BIRDEYE,
};

function usdSource(source: RowUsdSource): UsdSource {
  return source === null ? UsdSource.USD_SOURCE_NONE : SOURCES[source];
}

function toToken(row: TokenRow): PriceToken {
  const opt = (v: number | null) => (v === null ? undefined : v);
  return {
    // proto3 strings cannot be null: '' means not known (never seen created, no metadata).
    mint: row.mint,
    symbol: row.symbol ?? '',
    name: row.name ?? '',
    priceUsd: opt(row.price),
    marketCapUsd: opt(row.marketCap),
    volume24hUsd: opt(row.volume),
    change24hPercent: opt(row.change),
    lastTradeTimeMs: BigInt(row.timestamp ?? 0),
    priceSol: opt(row.priceSol),
    marketCapSol: opt(row.marketCapSol),
    volume24hSol: opt(row.volumeSol),
    usdSource: usdSource(row.usdSource),
    replayed: row.replayed,
  };
}

/** The service definition and implementation to pass to `startGrpcServer`. Errors: INVALID_ARGUMENT (limit too large), UNAVAILABLE (store unreachable). */
export function priceGrpcService(ticker: Ticker, logger: Logger, defaultLimit: number, maxLimit: number) {
  const implementation: PriceServiceServer = {
    listTokens: unary<ListTokensRequest, ListTokensResponse>(logger, 'ListTokens', async (request) => {
      if (request.limit > maxLimit) throw new AppError('invalid_argument', `limit must be at most ${maxLimit}`);
      let result;
      try {
        result = await ticker.list(request.limit === 0 ? defaultLimit : request.limit);
      } catch (err) {
        throw new AppError('unavailable', 'token data unavailable', { cause: err });
      }
      return {
        tokens: result.rows.map(toToken),
        solUsd: result.rate.solUsd ?? undefined,
        solUsdSource: usdSource(result.rate.source),
      };
    }),
  };
  return { definition: PriceServiceService, implementation };
}
