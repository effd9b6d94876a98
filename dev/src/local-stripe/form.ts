/**
 * Request parameters of the Stripe v1 API: `application/x-www-form-urlencoded` bodies and query
 * strings in Stripe's bracket notation (`line_items[0][price]=price_x&metadata[user_id]=u`,
 * `expand[0]=latest_invoice`, `lookup_keys[0]=a`), the encoding stripe-node produces
 * (node_modules/stripe/esm/utils.js `stringifyRequestData`: indexed arrays, booleans as
 * "true"/"false", null as an empty string, empty arrays/objects omitted).
 */
import qs from 'qs';
import { parameterInvalid, parameterMissing, parameterUnknown, parameterUnsupported } from './errors.js';

/** Parsed parameters: nested objects/arrays of strings, as `qs` builds them. */
export type Params = Record<string, unknown>;

/** Parses a form body or query string (without `?`); an empty text gives `{}`. */
export function parseParams(text: string): Params {
  if (text === '') return {};
  // depth/arrayLimit: Stripe nests at most a few levels; 100 indexes covers every list we accept.
  return qs.parse(text, { depth: 10, arrayLimit: 100 }) as Params;
}

/** Which top-level parameters an endpoint knows: `known` (all real Stripe ones), `unsupported` (real but refused). */
export interface ParamSpec {
  known: readonly string[];
  unsupported?: readonly string[];
}

/**
 * Checks top-level parameter names like Stripe does.
 * @returns the real parameters the stand-in accepts without acting on them (to log).
 * @throws StripeApiError parameter_unknown for a name Stripe does not have; 400 for a real but unsupported one.
 */
export function checkParamNames(params: Params, spec: ParamSpec): string[] {
  const ignored: string[] = [];
  for (const name of Object.keys(params)) {
    if (!spec.known.includes(name)) throw parameterUnknown(name);
    if (spec.unsupported?.includes(name)) throw parameterUnsupported(name);
    ignored.push(name);
  }
  return ignored;
}

/** A string parameter, or undefined when absent. An empty string (stripe-node's encoding of null) counts as absent. */
export function optionalString(value: unknown, param: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw parameterInvalid(param, `Invalid string: ${param} must be a string.`);
  return value;
}

/** A required non-empty string parameter. @throws parameter_missing when absent or empty. */
export function requiredString(value: unknown, param: string): string {
  const text = optionalString(value, param);
  if (text === undefined) throw parameterMissing(param);
  return text;
}

/** A boolean parameter sent as "true"/"false" (stripe-node's encoding). @throws 400 "Invalid boolean: <value>". */
export function optionalBoolean(value: unknown, param: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw parameterInvalid(param, `Invalid boolean: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}

/** An integer parameter (decimal digits). @throws 400 code parameter_invalid_integer, or when outside [min, max]. */
export function optionalInteger(value: unknown, param: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value)) {
    throw parameterInvalid(param, `Invalid integer: ${typeof value === 'string' ? value : JSON.stringify(value)}`, 'parameter_invalid_integer');
  }
  const n = Number(value);
  if (n < min) throw parameterInvalid(param, `This value must be greater than or equal to ${min}.`, 'parameter_invalid_integer');
  if (n > max) throw parameterInvalid(param, `This value must be less than or equal to ${max}.`, 'parameter_invalid_integer');
  return n;
}

/** An absolute http(s) URL parameter. @throws 400 code url_invalid ("Not a valid URL"). */
export function optionalUrl(value: unknown, param: string): string | undefined {
  const text = optionalString(value, param);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw parameterInvalid(param, 'Not a valid URL', 'url_invalid');
  }
  // Only http(s): the hosted pages put these URLs into links and redirects.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw parameterInvalid(param, 'Not a valid URL', 'url_invalid');
  return text;
}

/** An enum parameter. @throws 400 "Invalid <param>: must be one of a, b, or c". */
export function optionalEnum<T extends string>(value: unknown, param: string, allowed: readonly T[]): T | undefined {
  const text = optionalString(value, param);
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) {
    const list = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')}, or ${allowed[allowed.length - 1]}` : allowed.join('');
    throw parameterInvalid(param, `Invalid ${param}: must be one of ${list}`);
  }
  return text as T;
}

/** A list parameter (`name[0]=a&name[1]=b`); a lone string counts as a one-element list. */
export function optionalStringList(value: unknown, param: string): string[] | undefined {
  if (value === undefined || value === '') return undefined;
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (list === undefined || list.some((v) => typeof v !== 'string')) throw parameterInvalid(param, `Invalid array: ${param} must be a list of strings.`);
  return list as string[];
}

/** The `expand` parameter: dotted paths such as `latest_invoice` or `data.customer`; [] when absent. */
export function expandParam(params: Params): string[] {
  return optionalStringList(params.expand, 'expand') ?? [];
}

/** A list element parameter such as `line_items[0]` or `items[0]`: an object of fields, or undefined. */
export function optionalObject(value: unknown, param: string): Params | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw parameterInvalid(param, `Invalid object: ${param} must be an object.`);
  return value as Params;
}

/** A list-of-objects parameter (`items[0][id]=…&items[1][id]=…`). */
export function optionalObjectList(value: unknown, param: string): Params[] | undefined {
  if (value === undefined || value === '') return undefined;
  if (!Array.isArray(value)) throw parameterInvalid(param, `Invalid array: ${param} must be a list.`);
  return value.map((element, i) => {
    const object = optionalObject(element, `${param}[${i}]`);
    if (object === undefined) throw parameterInvalid(`${param}[${i}]`, `Invalid object: ${param}[${i}] must be an object.`);
    return object;
  });
}

/**
 * Stripe's metadata limits (https://docs.stripe.com/api/metadata): at most 50 keys, keys up to 40
 * characters, values up to 500 characters.
 */
const METADATA_MAX_KEYS = 50;
const METADATA_MAX_KEY_LENGTH = 40;
const METADATA_MAX_VALUE_LENGTH = 500;

/**
 * Applies a `metadata` parameter to existing metadata the way Stripe does: keys merge, a key set to
 * "" is removed, `metadata=` (empty) clears all keys.
 * @returns the new metadata (a new object), or `existing` unchanged when the parameter is absent.
 * @throws 400 for a non-object value or a limit exceeded.
 */
export function applyMetadata(existing: Record<string, string>, value: unknown, param = 'metadata'): Record<string, string> {
  if (value === undefined) return existing;
  if (value === '') return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw parameterInvalid(param, `Invalid object: ${param} must be a set of key-value pairs.`);
  const result: Record<string, string> = { ...existing };
  for (const [key, raw] of Object.entries(value as Params)) {
    if (typeof raw !== 'string') throw parameterInvalid(`${param}[${key}]`, `Invalid string: metadata values must be strings.`);
    if (key.length > METADATA_MAX_KEY_LENGTH)
      throw parameterInvalid(`${param}[${key}]`, `Metadata keys can have a maximum length of ${METADATA_MAX_KEY_LENGTH} characters.`);
    if (raw.length > METADATA_MAX_VALUE_LENGTH)
      throw parameterInvalid(`${param}[${key}]`, `Metadata values can have a maximum length of ${METADATA_MAX_VALUE_LENGTH} characters.`);
    if (raw === '') delete result[key];
    else result[key] = raw;
  }
  if (Object.keys(result).length > METADATA_MAX_KEYS) throw parameterInvalid(param, `Metadata can have a maximum of ${METADATA_MAX_KEYS} keys.`);
  return result;
}
