/**
 * The OpenAPI 3.1 document of the `/v1` API, generated from the route table and its zod schemas
 * (z.toJSONSchema; OpenAPI 3.1 uses JSON Schema 2020-12, zod's default target). Built once per
 * server. Custom zod types (free-form JSON fields) become `{}`: any value.
 */
import { z } from 'zod';
import { errorResponseSchema } from '../../schema/service-requests.js';
import { JSON_TYPE, NDJSON_TYPES } from './body.js';
import type { Route } from './routes.js';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** `/v1/patterns/:id/feedback` -> `/v1/patterns/{id}/feedback`, and its parameter names. */
function openApiPath(url: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path, params };
}

const ERROR_RESPONSES = {
  '400': 'Invalid input (INVALID_INPUT): malformed JSON or NDJSON, invalid UTF-8, or a body the schema rejects',
  '401': 'Missing or wrong bearer token (UNAUTHORIZED), for writes when the server has a token',
  '403': 'Sent by a web page whose Origin is neither loopback nor allowed (FORBIDDEN_ORIGIN), or naming another host than loopback to a server bound to loopback (FORBIDDEN_HOST)',
  '404': 'Unknown route or resource (NOT_FOUND, UNKNOWN_TOOL)',
  '413': 'Body or a field past a documented limit (PAYLOAD_TOO_LARGE)',
  '415': 'Content type not accepted by this endpoint (UNSUPPORTED_MEDIA_TYPE)',
  '500': 'Internal error (INTERNAL)',
} as const;

export function openApiDocument(routes: readonly Route[], version: string): Record<string, unknown> {
  const errorSchema = jsonSchema(errorResponseSchema, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const { path, params } = openApiPath(route.url);
    const errors = Object.fromEntries(
      Object.entries(ERROR_RESPONSES)
        .filter(([status]) => route.write || status !== '401')
        .filter(([status]) => route.body !== undefined || (status !== '413' && status !== '415'))
        .map(([status, description]) => [status, { description, content: { [JSON_TYPE]: { schema: { $ref: '#/components/schemas/Error' } } } }]),
    );
    const operation: Record<string, unknown> = {
      summary: route.summary,
      operationId: `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      ...(route.write ? { security: [{ bearer: [] }] } : {}),
      ...(params.length > 0 || route.query !== undefined
        ? {
            parameters: [
              ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
              ...Object.entries(route.query?.shape ?? {}).map(([name, schema]) => ({ name, in: 'query', required: false, schema: jsonSchema(schema as z.ZodType, 'input') })),
            ],
          }
        : {}),
      ...(route.body !== undefined
        ? {
            requestBody: {
              required: route.body.optional !== true,
              content: {
                [JSON_TYPE]: { schema: jsonSchema(route.body.schema, 'input') },
                ...(route.body.ndjson === true ? Object.fromEntries(NDJSON_TYPES.map((t) => [t, { schema: { description: 'One JSON value per line' } }])) : {}),
              },
            },
          }
        : {}),
      responses: {
        [String(route.status ?? 200)]: {
          description: route.status === 201 ? 'Created' : 'OK',
          content:
            route.ndjson === true
              ? { [NDJSON_TYPES[0]]: { schema: { description: 'One JSON value per line, each of this schema', ...jsonSchema(route.response, 'output') } } }
              : { [JSON_TYPE]: { schema: jsonSchema(route.response, 'output') } },
        },
        ...errors,
      },
    };
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'toolgraph',
      version,
      description: 'Next-tool prediction, tool search and trace scoring learned from agents\' tool-use traces. Errors are {error: {code, message}}.',
    },
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Required for writes when the server runs with TOOLGRAPH_TOKEN' } },
    },
  };
}
