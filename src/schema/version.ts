/**
 * The package's version, read once from its own package.json (found by walking up from this
 * file: `dist/src/schema/` when built, `src/schema/` in the sources), so that `--version`, the
 * OpenAPI document and the MCP server's handshake say what `npm` installed, from one place.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'toolgraph' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // No package.json here: one folder up.
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}

export const VERSION = packageVersion();
