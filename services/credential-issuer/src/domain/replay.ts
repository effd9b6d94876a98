/**
 * Native Pro replay: a Pro customer reads TRADES history with a JetStream consumer of their own,
 * using their own credentials (docs/nats.md, "Native replay").
 *
 * Design, measured on nats-server 2.9.10:
 *  - account `REPLAY` holds a **mirror** of `TRADES` (same stream sequences) created by
 *    credential-issuer through TRADEWIND's exported consumer-create and flow-control API
 *    (`$JS.TW.API` in REPLAY) and a delivery stream export (`replay.mirror.>`);
 *  - REPLAY exports the few JetStream API subjects a pull consumer needs with
 *    `account_token_position` on the consumer-name token, so an importing account can only name
 *    a consumer after **its own account public key** (one replay consumer per customer, others'
 *    consumers unreachable);
 *  - each Pro customer account imports them under the API prefix `$JS.REPLAY.API`
 *    (clients: `jetstreamManager(nc, { apiPrefix: '$JS.REPLAY.API', checkAPI: false })`).
 * Why not TRADEWIND's own JetStream API: a consumer's config (e.g. a push `deliver_subject`)
 * is not visible in the API subject, so a customer could make the server publish trades into
 * the services' subject space (EVENTS). In REPLAY there is nothing else to reach.
 */
import type { Export, Import } from '@nats-io/jwt';
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { DEFAULT_TRADES_STREAM, isJetStreamNotFound, retryStartup } from '@tradewind/lib';
import { TRADES_STREAM } from '@tradewind/contracts';

/** API prefix under which Pro customers reach the REPLAY account's JetStream API. */
export const REPLAY_API_PREFIX = '$JS.REPLAY.API';

/** API prefix of TRADEWIND's JetStream API inside the REPLAY account (the mirror's `external.api`). */
const MIRROR_API_PREFIX = '$JS.TW.API';
/** Deliver-subject prefix of the mirror's consumer in TRADEWIND. */
const MIRROR_DELIVER_PREFIX = 'replay.mirror';

/** What TRADEWIND exports so that REPLAY can mirror TRADES (only accounts the operator signs can import). */
export const TRADEWIND_MIRROR_EXPORTS: readonly Export[] = [
  { name: 'trades-mirror-create', subject: `$JS.API.CONSUMER.CREATE.${TRADES_STREAM}`, type: 'service' },
  { name: 'trades-mirror-create-ex', subject: `$JS.API.CONSUMER.CREATE.${TRADES_STREAM}.>`, type: 'service' },
  { name: 'trades-mirror-flow-control', subject: '$JS.FC.>', type: 'service' },
  { name: 'trades-mirror-deliver', subject: `${MIRROR_DELIVER_PREFIX}.>`, type: 'stream' },
];

/** REPLAY's imports of the above, TRADEWIND's API mapped under {@link MIRROR_API_PREFIX}. */
export function REPLAY_MIRROR_IMPORTS(tradewindAccount: string): Import[] {
  return [
    {
      name: 'trades-mirror-create',
      subject: `$JS.API.CONSUMER.CREATE.${TRADES_STREAM}`,
      local_subject: `${MIRROR_API_PREFIX}.CONSUMER.CREATE.${TRADES_STREAM}`,
      account: tradewindAccount,
      type: 'service',
    },
    {
      name: 'trades-mirror-create-ex',
      subject: `$JS.API.CONSUMER.CREATE.${TRADES_STREAM}.>`,
      local_subject: `${MIRROR_API_PREFIX}.CONSUMER.CREATE.${TRADES_STREAM}.>`,
      account: tradewindAccount,
      type: 'service',
    },
    { name: 'trades-mirror-flow-control', subject: '$JS.FC.>', account: tradewindAccount, type: 'service' },
    { name: 'trades-mirror-deliver', subject: `${MIRROR_DELIVER_PREFIX}.>`, account: tradewindAccount, type: 'stream' },
  ];
}

/**
 * The pull-consumer API of the mirror, per consumer name; `position` is the 1-based token that
 * must equal the importing account's public key (nats-server `account_token_position`).
 */
const CONSUMER_API = [
  { name: 'replay-consumer-create', subject: (c: string) => `$JS.API.CONSUMER.CREATE.${TRADES_STREAM}.${c}`, position: 6 },
  { name: 'replay-consumer-create-filtered', subject: (c: string) => `$JS.API.CONSUMER.CREATE.${TRADES_STREAM}.${c}.>`, position: 6 },
  { name: 'replay-consumer-info', subject: (c: string) => `$JS.API.CONSUMER.INFO.${TRADES_STREAM}.${c}`, position: 6 },
  { name: 'replay-consumer-delete', subject: (c: string) => `$JS.API.CONSUMER.DELETE.${TRADES_STREAM}.${c}`, position: 6 },
  { name: 'replay-consumer-next', subject: (c: string) => `$JS.API.CONSUMER.MSG.NEXT.${TRADES_STREAM}.${c}`, position: 7, stream: true },
] as const;

/** REPLAY's exports: the consumer API, each consumer name bound to the importing account. */
export const REPLAY_ACCOUNT_EXPORTS: readonly Export[] = CONSUMER_API.map(
  (api): Export => ({
    name: api.name,
    subject: api.subject('*'),
    type: 'service',
    account_token_position: api.position,
    ...('stream' in api ? { response_type: 'Stream' as const } : {}),
  }),
);

/** A Pro customer account's imports of the replay API (under {@link REPLAY_API_PREFIX}). */
export function customerReplayImports(replayAccount: string, customerAccount: string): Import[] {
  return CONSUMER_API.map(
    (api): Import => ({
      name: api.name,
      subject: api.subject(customerAccount),
      local_subject: api.subject(customerAccount).replace(/^\$JS\.API/, REPLAY_API_PREFIX),
      account: replayAccount,
      type: 'service',
    }),
  );
}

/**
 * The name a customer's native replay consumer must have: their account public key (the only
 * name the imports let them use).
 */
export function replayConsumerName(customerAccount: string): string {
  return customerAccount;
}

/**
 * Creates the mirror of TRADES in the REPLAY account; idempotent. A start-up step (`REPLAY mirror of TRADES`,
 * @tradewind/lib retryStartup): inside credential-issuer's start-up a cluster still settling is asked again
 * with backoff until STARTUP_DEADLINE_MS.
 * @param jsm a JetStream manager of a REPLAY-account user.
 * @param maxAgeMs retention (default TRADES' 24 h: what Pro replay can read).
 * @throws the nats.js JetStreamApiError when the server refuses the config (StartupFailedError inside a start-up).
 */
export async function ensureReplayMirror(jsm: JetStreamManager, maxAgeMs = DEFAULT_TRADES_STREAM.maxAgeMs): Promise<void> {
  const config: Partial<StreamConfig> & { name: string } = {
    name: TRADES_STREAM,
    mirror: { name: TRADES_STREAM, external: { api: MIRROR_API_PREFIX, deliver: MIRROR_DELIVER_PREFIX } },
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: maxAgeMs * 1_000_000,
    max_bytes: DEFAULT_TRADES_STREAM.maxBytes,
  };
  await retryStartup('REPLAY mirror of TRADES', async () => {
    try {
      // A mirror's origin cannot be changed once created; an existing one is left as it is.
      await jsm.streams.info(TRADES_STREAM);
    } catch (err) {
      if (!isJetStreamNotFound(err, 'stream')) throw err;
      await jsm.streams.add(config);
    }
  });
}
