/** Public surface of @tradewind/ingest (scripts and tests). */
export {
  decodeTransaction,
  decodeNormalized,
  normalizeTransaction,
  subjectOf,
  messageId,
  DecodeError,
  TokenNameCache,
  DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES,
  TRADE_MESSAGE_SCHEMA_VERSION,
  PUMPFUN_MESSAGE_TYPE,
  type TradeMessage,
  type PumpfunMessage,
  type PumpfunTradeData,
  type PumpswapMessage,
  type RaydiumCpmmMessage,
  type BonkMessage,
  type NormalizedTransaction,
  type DecodeOptions,
  type TokenName,
} from './decode/index.js';
export { mayTouchPrograms, TRADE_PROGRAM_IDS } from './decode/prefilter.js';
export { COMMITMENTS, type Commitment } from './decode/types.js';
export { createApp } from './app.js';
export {
  loadIngestConfig,
  IngestConfigSchema,
  BUNDLED_RECORDING_DIR,
  DEFAULT_PUBLISH_CONTENTION_HOLD_MS,
  DEFAULT_PUBLISH_STAGED_ID_STEPDOWN_MS,
  type IngestConfig,
} from './config.js';
export { loadRecording, listJsonFiles, replayOrder, RECORDING_COMMITMENT, type RecordedTransaction, type RecordingProblem } from './replay/recording.js';
export { replay, replayCopy, type OutgoingTrade } from './replay/replay-source.js';
export { normalizeYellowstoneTransaction } from './live/yellowstone-normalize.js';
export { createYellowstoneSource, buildSubscribeRequest, type YellowstoneSourceOptions } from './live/yellowstone.js';
export { sourceMetrics, type SourceMetrics } from './live/source.js';
export {
  addDerivedFields,
  createDeriver,
  SolUsdReference,
  type Deriver,
  type DeriverOptions,
  type DerivedContext,
  type UsdReference,
} from './decode/derived.js';
export { LaunchlabSupplyCache, DEFAULT_LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES, type LaunchlabPoolSupply } from './decode/pool-supplies.js';
export { createTradePipeline, TradePipelineConfigSchema, type TradePipeline, type TradePipelineConfig, type TradePipelineHooks } from './pipeline.js';
export {
  openLeaderLease,
  leaderMetrics,
  defaultRenewMs,
  LeaderLease,
  LEADER_BUCKET,
  type LeaderLeaseOptions,
  type LeaderMetrics,
  type LeaseValue,
  type ElectedReason,
  type DeposedReason,
} from './leader-lease.js';
export {
  OrderedPublisher,
  publisherMetrics,
  UnconfirmedDuplicateError,
  DUPLICATE_IN_PROCESS_ERR_CODE,
  type OrderedPublisherOptions,
  type PublisherMetrics,
} from './publisher.js';
