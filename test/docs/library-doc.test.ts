/**
 * docs/library.md documents every export of src/index.ts: each exported name (values and types
 * alike) is the subject of a heading of the page, `### \`name(...)\``, or of a table's first
 * column. The names are read from src/index.ts with the TypeScript compiler, so an export added
 * without its documentation fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every name `src/index.ts` exports (`export { a, type B } from ...`). */
export function indexExports(source: string): string[] {
  const file = ts.createSourceFile('index.ts', source, ts.ScriptTarget.ES2022);
  const names: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (clause === undefined || !ts.isNamedExports(clause)) throw new Error(`src/index.ts: \`export *\` is not allowed: ${statement.getText(file)}`);
    for (const element of clause.elements) names.push(element.name.text);
  }
  return names;
}

/** The names docs/library.md documents: in backticks in a heading, or first in a table row. */
export function documentedNames(doc: string): Set<string> {
  const names = new Set<string>();
  for (const line of doc.split('\n')) {
    const subject = /^#{2,4} /.test(line) ? line : /^\| /.test(line) ? line.split(' | ')[0]! : null;
    if (subject === null) continue;
    for (const match of subject.matchAll(/`([A-Za-z_$][\w$]*)/g)) names.add(match[1]!);
  }
  return names;
}

describe('docs/library.md', () => {
  const exports = indexExports(readFileSync(join(ROOT, 'src', 'index.ts'), 'utf8'));
  const documented = documentedNames(readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8'));

  it('reads the exports of src/index.ts', () => {
    expect(exports.length).toBeGreaterThan(100);
    expect(exports).toContain('openToolgraph');
    expect(exports).toContain('ToolgraphError');
  });

  it('has every export of src/index.ts in a heading or a table', () => {
    expect(exports.filter((name) => !documented.has(name))).toEqual([]);
  });
});
