/**
 * Control events of a TradewindClient (`client.events()`, `client.on(type, …)`).
 * Server control messages keep their protocol names (docs/websocket.md §4); fields are camelCase.
 */
import type { Gap } from './domain/subscriptions.js';
import type { TradeFilter } from './domain/protocol.js';
import type { TradewindError } from './errors.js';

/** Every event, discriminated by `type`. */
export type ClientEvent =
  /** A connection attempt starts; `attempt` 0 is the first connection, n the n-th reconnect in a row. */
  | { type: 'connecting'; url: string; attempt: number }
  /** The server accepted the credentials. `expiresAtMs`: the user JWT's expiry (ms since the epoch) or null. */
  | { type: 'authenticated'; plan: string; subjects: string[]; expiresAtMs: number | null }
  /** A subscribe, resume or filter change was accepted. `resumeAfter`: the sequence it resumes after, null when live. */
  | { type: 'subscribed'; subject: string; filter: TradeFilter | null; resumeAfter: number | null }
  /**
   * Gap-free resume: every message of `subject` after `afterSeq` has been delivered (once, in
   * order); what follows is live. `caughtUpSeq`: the last one sent before live, null when there was none.
   */
  | { type: 'resumed'; subject: string; afterSeq: number; caughtUpSeq: number | null }
  /** The server ended a subscription: at our request (`reason` null) or after a plan change (`reason` "plan_changed"). */
  | { type: 'unsubscribed'; subject: string; reason: string | null; message: string | null }
  /** The account's plan or its subjects changed on the live connection. */
  | { type: 'plan_changed'; plan: string; subjects: string[] }
  /**
   * A slot's status on a subscription with slot status, after that slot's trades: `confirmed`, `finalized` or
   * `dead` (its trades never happened). `trades`: trades ingest published from the slot per subject.
   */
  | {
      type: 'slot';
      subject: string;
      seq: number;
      slot: number;
      parent: number | null;
      status: 'processed' | 'confirmed' | 'finalized' | 'dead';
      trades: Record<string, number>;
      reason: string | null;
      deadError: string | null;
    }
  /** The server's keep-alive (every 5 s without trades): newest slot seen and last sequence of the connection's subjects. */
  | { type: 'heartbeat'; slot: number | null; seq: number | null }
  /**
   * Messages of `subject` after `afterSeq` could not be resumed (older than the server's resume
   * window, or a position the server refused); the subscription carries on live from now.
   */
  | ({ type: 'gap' } & Gap)
  /** An error frame from the server (connection stays open unless a close follows), or a frame the client could not read (`bad_frame`). */
  | { type: 'error'; code: string; message: string; subject: string | null }
  /** The connection is down; attempt `attempt` starts in `delayMs`. `closeCode`/`reason`: why it went down. */
  | { type: 'reconnecting'; attempt: number; delayMs: number; closeCode: number; reason: string }
  /** The client stopped: `error` null after close(), else why (credentials refused, reconnect attempts used up). Last event. */
  | { type: 'closed'; error: TradewindError | null };

/** The event of one `type`. */
export type ClientEventOf<T extends ClientEvent['type']> = Extract<ClientEvent, { type: T }>;
