import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  API_SECURITY_HEADERS,
  DEFAULT_WEB_SECURITY_ENV,
  HSTS_VALUE,
  PERMISSIONS_POLICY,
  cspOriginList,
  htmlContentSecurityPolicy,
  htmlSecurityHeaders,
  inlineScriptHashes,
  webSecuritySettingsFromEnv,
} from './security-headers.js';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The directives of a policy by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values];
    }),
  );
}

describe('inlineScriptHashes', () => {
  it('when a page holds inline scripts, then each distinct text is hashed once, in order, and scripts with src are not', () => {
    const multiLine = "\n      (function () {\n        document.documentElement.dataset.theme = 'dark';\n      })();\n    ";
    const html = [
      `<script>${multiLine}</script>`,
      '<script type="application/ld+json" data-route-jsonld>{"a":"é"}</script>',
      '<script type="module" crossorigin src="/assets/index-1.js"></script>',
      '<SCRIPT>x()</SCRIPT >',
      `<script>${multiLine}</script>`,
    ].join('\n');
    expect(inlineScriptHashes(html)).toEqual([sha256(multiLine), sha256('{"a":"é"}'), sha256('x()')]);
  });

  it('when a page has no inline script, then there is no hash', () => {
    expect(inlineScriptHashes('<title>x</title><script src="/a.js"></script>')).toEqual([]);
  });
});

describe('htmlContentSecurityPolicy', () => {
  const local = webSecuritySettingsFromEnv({});

  it("when built for the local stack, then every fetch directive is 'none' but what the app loads, and no source is 'unsafe-*' or a wildcard", () => {
    const csp = directives(htmlContentSecurityPolicy(local, [sha256('x')]));
    expect(Object.fromEntries(csp)).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'", sha256('x')],
      'style-src': ["'self'"],
      'img-src': ["'self'"],
      'connect-src': ["'self'", 'ws://localhost:9223'],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'", 'http://localhost:8091', 'http://localhost:8092'],
      'frame-ancestors': ["'none'"],
    });
    for (const values of csp.values()) for (const v of values) expect(v).not.toMatch(/^'unsafe-|^\*$|^https?:$|^data:$/);
  });

  it('when a host is named twice, then the policy names it once', () => {
    const s = { ...local, signInOrigins: ['https://a.example'], checkoutOrigins: ['https://a.example'] };
    expect(directives(htmlContentSecurityPolicy(s)).get('form-action')).toEqual(["'self'", 'https://a.example']);
  });

  it('when the HTML headers are built, then they hold the policy, the referrer rule and the common headers', () => {
    expect(htmlSecurityHeaders(local)).toMatchObject({
      'content-security-policy': htmlContentSecurityPolicy(local),
      'referrer-policy': 'strict-origin-when-cross-origin',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'cross-origin-opener-policy': 'same-origin',
      'permissions-policy': PERMISSIONS_POLICY,
    });
  });
});

describe('settings and constants', () => {
  it('when the environment is empty, then the settings are the local stack of npm start', () => {
    expect(webSecuritySettingsFromEnv({})).toEqual({
      websocketUrl: DEFAULT_WEB_SECURITY_ENV.WS_PUBLIC_URL,
      signInOrigins: ['http://localhost:8091'],
      checkoutOrigins: ['http://localhost:8092'],
      imageOrigins: [],
    });
  });

  it('when an origin list has commas, spaces, upper case or a trailing slash, then it is normalised; anything else is refused with the setting name', () => {
    expect(cspOriginList(' https://A.example/, https://b.example:8443 ', 'X')).toEqual(['https://a.example', 'https://b.example:8443']);
    for (const bad of ["'unsafe-inline'", 'https://a.example/path', '*', 'javascript:alert(1)', 'https://a.example;script-src', 'data:']) {
      expect(() => cspOriginList(bad, 'CSP_X'), bad).toThrow(/^CSP_X: /);
    }
  });

  it("when the API headers are read, then they allow nothing, frame nothing, send no referrer and keep other sites' embeds out", () => {
    expect(API_SECURITY_HEADERS).toEqual({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'cross-origin-opener-policy': 'same-origin',
      'permissions-policy': PERMISSIONS_POLICY,
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin',
    });
    expect(HSTS_VALUE).toBe('max-age=31536000; includeSubDomains');
    expect(PERMISSIONS_POLICY).toMatch(/^camera=\(\)|, camera=\(\)/);
    expect(PERMISSIONS_POLICY).not.toContain('clipboard');
  });
});
