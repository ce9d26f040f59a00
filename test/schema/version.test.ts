import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/schema/version.js';
import { SERVER_VERSION } from '../../src/service/mcp/server.js';
import { API_VERSION } from '../../src/service/http/server.js';

describe('the version', () => {
  it("is the package's, in the CLI, the OpenAPI document and the MCP handshake alike", () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    expect(API_VERSION).toBe(pkg.version);
    expect(SERVER_VERSION).toBe(pkg.version);
  });
});
