import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { createHttpApp } from './http.js';
import { createLogger } from './logger.js';
import { ErrorBodySchema, buildOpenApiDocument, openApiOperations, openApiPath, openApiProblems, recordRoutes, type ApiDeclaration } from './openapi.js';

const Item = z.object({ id: z.string(), size: z.int().min(1).describe('Size in bytes') }).describe('An item');

function api(overrides: Partial<ApiDeclaration> = {}): ApiDeclaration {
  return {
    service: 'things',
    tag: { name: 'things', description: 'Things' },
    components: { Item },
    routes: [
      {
        method: 'get',
        path: '/api/things/:id',
        operationId: 'getThing',
        summary: 'One thing',
        security: ['bearer'],
        query: z.object({ fields: z.string().optional().describe('Which fields'), mode: z.enum(['a', 'b']) }),
        responses: {
          200: { description: 'The thing', body: Item, alternatives: [{ contentType: 'text/plain', body: z.string().describe('As text') }] },
          401: { description: 'No session', body: ErrorBodySchema },
        },
      },
      {
        method: 'post',
        path: '/api/things',
        operationId: 'createThing',
        summary: 'Make one',
        security: ['bearer', 'refreshCookie'],
        authOptional: true,
        body: { schema: z.object({ size: z.int() }), required: false },
        responses: { 204: { description: 'Made', headers: { Location: 'Where' } }, 400: { description: 'Bad', body: ErrorBodySchema } },
      },
    ],
    ...overrides,
  };
}

const doc = () => buildOpenApiDocument({ title: 'T', version: '1.2.3', apis: [api()] });

describe('buildOpenApiDocument', () => {
  it('when routes are declared, then each becomes an operation with its parameters, body, responses and security', () => {
    const d = doc() as any;
    expect(d.openapi).toBe('3.1.0');
    expect(d.info).toEqual({ title: 'T', version: '1.2.3' });
    const get = d.paths['/api/things/{id}'].get;
    expect(get.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'fields', in: 'query', required: false, description: 'Which fields', schema: { type: 'string' } },
      { name: 'mode', in: 'query', required: true, schema: { type: 'string', enum: ['a', 'b'] } },
    ]);
    expect(get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Item' });
    expect(get.responses['200'].content['text/plain'].schema).toEqual({ type: 'string', description: 'As text' });
    expect(get.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    expect(get.security).toEqual([{ bearer: [] }]);
    const post = d.paths['/api/things'].post;
    expect(post.security).toEqual([{ bearer: [] }, { refreshCookie: [] }, {}]);
    expect(post.requestBody).toEqual({ required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateThingRequest' } } } });
    expect(Object.keys(post.responses)).toEqual(['204', '400']);
    const withDefault = buildOpenApiDocument({
      title: 'T',
      version: '1',
      apis: [api({ defaultResponse: { description: 'Other', body: ErrorBodySchema } })],
    }) as any;
    expect(Object.keys(withDefault.paths['/api/things'].post.responses)).toEqual(['204', '400', 'default']);
    expect(withDefault.paths['/api/things'].post.responses.default.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    expect(post.responses['204']).toEqual({ description: 'Made', headers: { Location: { description: 'Where', schema: { type: 'string' } } } });
    expect(d.components.schemas.Item).toMatchObject({
      type: 'object',
      description: 'An item',
      properties: { size: { type: 'integer', minimum: 1, description: 'Size in bytes' } },
    });
    expect(d.components.schemas.ErrorBody.required).toEqual(['status', 'message']);
    expect(Object.keys(d.components.securitySchemes)).toEqual(['bearer', 'refreshCookie']);
    expect(JSON.stringify(d)).not.toContain('$schema');
  });

  it('when an operationId, a method and path, or a component name is used twice, then it throws', () => {
    const [first] = api().routes;
    expect(() => buildOpenApiDocument({ title: 'T', version: '1', apis: [api({ routes: [first!, { ...first!, path: '/x' }] })] })).toThrow(
      /duplicate operationId getThing/,
    );
    expect(() => buildOpenApiDocument({ title: 'T', version: '1', apis: [api({ routes: [first!, { ...first!, operationId: 'other' }] })] })).toThrow(
      /duplicate route GET/,
    );
    expect(() => buildOpenApiDocument({ title: 'T', version: '1', apis: [api(), api({ routes: [], components: { Item: z.string() } })] })).toThrow(
      /two schemas are named Item/,
    );
  });

  it('when a fastify path has parameters, then they become OpenAPI templates and back', () => {
    expect(openApiPath('/auth/:id/x/:other_id')).toBe('/auth/{id}/x/{other_id}');
    expect(openApiOperations(doc())).toEqual(['GET /api/things/:id', 'POST /api/things']);
  });
});

describe('openApiProblems', () => {
  it('when the document is built from declarations, then it has no problems', () => {
    expect(openApiProblems(doc())).toEqual([]);
  });

  it('when the document is broken, then each problem is named', () => {
    const d = doc() as any;
    d.openapi = '3.0.3';
    delete d.info.version;
    d.paths['/api/things'].post.responses = {};
    d.paths['/api/things/{id}'].get.responses['200'].content['application/json'].schema.$ref = '#/components/schemas/Nope';
    d.paths['/api/things/{id}'].get.parameters.shift();
    d.paths['/api/things/{id}'].get.security = [{ apiKey: [] }];
    d.paths['/api/things/{id}'].get.responses.ok = { description: 'x' };
    expect(openApiProblems(d)).toEqual([
      'openapi must be "3.1.x", not "3.0.3"',
      'info needs a title and a version (strings)',
      'POST /api/things has no responses',
      'GET /api/things/{id} has a response key ok that is not a status',
      'GET /api/things/{id} does not declare its path parameter id',
      'GET /api/things/{id} uses the undeclared security scheme apiKey',
      '#/paths//api/things/{id}/get/responses/200/content/application/json/schema: $ref #/components/schemas/Nope does not resolve',
    ]);
  });
});

describe('recordRoutes', () => {
  it('when routes are registered after it, then it lists each once without the automatic HEAD routes', async () => {
    const app = createHttpApp({ logger: createLogger({ service: 't', level: 'silent' }), registry: new Registry(), service: 't' });
    const seen = recordRoutes(app);
    app.get('/a', async () => ({}));
    app.route({ method: ['POST', 'PUT'], url: '/b/:id', handler: async () => ({}) });
    await app.ready();
    expect(seen.sort()).toEqual(['GET /a', 'POST /b/:id', 'PUT /b/:id']);
    await app.close();
  });
});
