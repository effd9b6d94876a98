/**
 * Stripe API errors as the local Stripe stand-in answers them. The wire shape is Stripe's
 * (https://docs.stripe.com/api/errors): `{"error": {"type", "code"?, "param"?, "message", "doc_url"?}}`,
 * so stripe-node turns them into its own error classes (StripeInvalidRequestError for 400/404,
 * StripeAuthenticationError for 401, StripeIdempotencyError for type `idempotency_error`).
 */

/** Stripe's `error.type` values the stand-in produces. */
export type StripeErrorType = 'invalid_request_error' | 'idempotency_error' | 'api_error';

/** The JSON body of a Stripe error response. */
export interface StripeErrorBody {
  error: { type: StripeErrorType; code?: string; param?: string; message: string; doc_url?: string };
}

/**
 * A request Stripe would refuse: carries the HTTP status and the error body fields.
 * Thrown by the state operations and turned into a JSON answer at the HTTP edge; the public
 * test-clock functions let it escape as a plain `Error` (it is one).
 */
export class StripeApiError extends Error {
  readonly status: number;
  readonly type: StripeErrorType;
  readonly code: string | undefined;
  readonly param: string | undefined;

  constructor(status: number, message: string, options: { type?: StripeErrorType; code?: string; param?: string } = {}) {
    super(message);
    this.name = 'StripeApiError';
    this.status = status;
    this.type = options.type ?? 'invalid_request_error';
    this.code = options.code;
    this.param = options.param;
  }

  /** The response body; `doc_url` follows Stripe's pattern https://stripe.com/docs/error-codes/<code-with-dashes>. */
  toBody(): StripeErrorBody {
    const error: StripeErrorBody['error'] = { type: this.type, message: this.message };
    if (this.code !== undefined) {
      error.code = this.code;
      error.doc_url = `https://stripe.com/docs/error-codes/${this.code.replace(/_/g, '-')}`;
    }
    if (this.param !== undefined) error.param = this.param;
    return { error };
  }
}

/** Stripe's object names in "No such <name>" messages, keyed by what the stand-in stores. */
export type ResourceName = 'customer' | 'price' | 'product' | 'subscription' | 'invoice' | 'checkout.session' | 'billing_portal.session' | 'event';

/**
 * "No such customer: 'cus_x'" (code `resource_missing`). Stripe answers 404 when the id is in the
 * path (`param: 'id'`) and 400 when a parameter names a missing object (`param` = that parameter).
 */
export function resourceMissing(resource: ResourceName, id: string, param = 'id'): StripeApiError {
  return new StripeApiError(param === 'id' ? 404 : 400, `No such ${resource}: '${id}'`, { code: 'resource_missing', param });
}

/** "Missing required param: <param>." (400, code `parameter_missing`). */
export function parameterMissing(param: string): StripeApiError {
  return new StripeApiError(400, `Missing required param: ${param}.`, { code: 'parameter_missing', param });
}

/** "Received unknown parameter: <param>" (400, code `parameter_unknown`), Stripe's answer to a misspelt parameter. */
export function parameterUnknown(param: string): StripeApiError {
  return new StripeApiError(400, `Received unknown parameter: ${param}`, { code: 'parameter_unknown', param });
}

/** A bad parameter value (400) with an optional Stripe error code such as `parameter_invalid_integer`. */
export function parameterInvalid(param: string, message: string, code?: string): StripeApiError {
  return new StripeApiError(400, message, code === undefined ? { param } : { param, code });
}

/**
 * A real Stripe parameter the stand-in does not implement (400). Refused rather than ignored
 * because it would change what Stripe does, so a silent no-op would hide a difference.
 */
export function parameterUnsupported(param: string): StripeApiError {
  return new StripeApiError(400, `The local Stripe stand-in does not support the parameter \`${param}\`; it is not a real Stripe limitation.`, { param });
}
