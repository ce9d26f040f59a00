/**
 * docs/cli.md is the CLI's reference: every command of the command table (the one `--help` and
 * the parser are built from) has its section, `### \`name\``, and every option of the command is
 * in that section's option table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'cli.md'), 'utf8');

/** The section of docs/cli.md under `### \`name\``, up to the next heading of that level or above. */
function section(name: string): string | undefined {
  const start = doc.indexOf(`\n### \`${name}\`\n`);
  if (start < 0) return undefined;
  const rest = doc.slice(start + 1);
  const end = rest.slice(1).search(/\n#{1,3} /);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

describe('docs/cli.md', () => {
  it('has a section for every command', () => {
    const missing = COMMANDS.map((c) => c.name).filter((name) => section(name) === undefined);
    expect(missing).toEqual([]);
  });

  it("lists every option of every command in its section's table, with the usage line", () => {
    const missing: string[] = [];
    for (const command of COMMANDS) {
      const text = section(command.name) ?? '';
      if (!text.includes(`toolgraph ${command.usage}`)) missing.push(`${command.name}: usage`);
      for (const option of Object.keys(command.options)) {
        if (!new RegExp(`^\\| \`--${option}[ \`]`, 'm').test(text)) missing.push(`${command.name} --${option}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
