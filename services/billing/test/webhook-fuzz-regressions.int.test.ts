/**
 * Regressions found by the Stripe webhook fuzz (scripts/reliability/fuzz/stripe-webhooks.ts, issue 24):
 * a correctly signed body that is not an event billing can store got 500 (and would be retried by
 * Stripe forever); it now gets 400 invalid_signature "The body is not a Stripe event" and nothing is
 * stored, while real events are still processed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { eventShapeError } from '../src/http/routes.js';
import { WEBHOOK_SECRET, json, startHarness, type Harness } from './support.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('billing_webhook_fuzz');
});

afterAll(async () => {
  await h?.close();
});

/** POSTs `payload` exactly as given, signed with the endpoint's secret. */
async function deliverRaw(payload: string): Promise<Response> {
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) });
  return fetch(`${h.baseUrl}/api/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
}

const stored = async () =>
  Number(
    (
      await h.db
        .selectFrom('stripe_events')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('signed bodies that are not Stripe events', () => {
  // The first three are the fuzz's own counterexamples (seed 10 of the first run).
  const bodies = [
    '{"id":-352590862,"object":"event","type":"\\"Z","created":2.8236023693862766e-263,"livemode":true,"data":null}',
    '{"l[->g\\"":true,"Z1d":null}',
    '{"id":"w[InSZrUxH","object":"event","type":"xam","data":null}',
    'null',
    '[]',
    '5',
    '{"id":"evt_nul","object":"event","type":"x.y","created":1,"livemode":false,"data":{"object":{"id":"a\\u0000b"}}}',
    '{"id":"evt_no_sub","object":"event","type":"customer.subscription.updated","created":1,"livemode":false,"data":{"object":{"object":"invoice"}}}',
  ];
  for (const body of bodies) {
    it(`when ${body.slice(0, 60)} arrives correctly signed, then 400 invalid_signature and nothing is stored`, async () => {
      const before = await stored();
      const res = await deliverRaw(body);
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ status: 400, code: 'invalid_signature' });
      expect(await stored()).toBe(before);
    });
  }

  it('when a well-formed unknown event arrives after them, then it is still acknowledged as unhandled', async () => {
    const res = await deliverRaw(
      JSON.stringify({
        id: 'evt_after_fuzz',
        object: 'event',
        type: 'customer.tax_id.created',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: { object: { id: 'txi_1', object: 'tax_id' } },
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, outcome: 'unhandled' });
  });

  it('when eventShapeError is asked about a real event shape, then it finds nothing wrong', () => {
    expect(
      eventShapeError({ id: 'evt_1', object: 'event', type: 'invoice.paid', created: 1, livemode: false, data: { object: { id: 'in_1', object: 'invoice' } } }),
    ).toBeUndefined();
    expect(
      eventShapeError({ id: 'evt_1', type: 'invoice.paid', created: 1, livemode: false, data: { object: { id: 'in_1', object: 'subscription' } } }),
    ).toMatch(/invoice/);
  });
});
