/**
 * Builds the dashboard (src/web) into a folder the server serves (`dist/web` by `npm run build`):
 * index.html, and under assets/ one bundled, minified script (esbuild: the views, sigma.js,
 * graphology and its layouts) and one stylesheet. Nothing is loaded from elsewhere at run time.
 *
 * `node dist/scripts/build-web.js [OUTDIR]`; tests call `buildDashboard(outdir)` to serve a
 * fresh build. Reports each file's size, raw and gzipped (level 9, as the server sends it).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export interface BuiltFile {
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
}

/** The package's root, from this file (scripts/ or dist/scripts/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!readdirSync(dir).includes('package.json')) dir = dirname(dir);
  return dir;
}

/** Every file under `dir` with its raw and gzipped size. */
export function builtFiles(dir: string): BuiltFile[] {
  const out: BuiltFile[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const file = join(at, name);
      if (statSync(file).isDirectory()) walk(file);
      else {
        const body = readFileSync(file);
        out.push({ file: relative(dir, file), bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length });
      }
    }
  };
  walk(dir);
  return out;
}

export async function buildDashboard(outdir: string): Promise<BuiltFile[]> {
  const web = join(packageRoot(), 'src', 'web');
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, 'assets'), { recursive: true });
  await build({
    entryPoints: { dashboard: join(web, 'main.ts'), 'dashboard-style': join(web, 'dashboard.css') },
    outdir: join(outdir, 'assets'),
    entryNames: '[name]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    platform: 'browser',
    tsconfig: join(web, 'tsconfig.json'),
    legalComments: 'eof',
    logLevel: 'warning',
    // The stylesheet is its own entry: its output is renamed below to the name the page links.
    loader: { '.css': 'css' },
  });
  copyFileSync(join(outdir, 'assets', 'dashboard-style.css'), join(outdir, 'assets', 'dashboard.css'));
  rmSync(join(outdir, 'assets', 'dashboard-style.css'));
  copyFileSync(join(web, 'index.html'), join(outdir, 'index.html'));
  return builtFiles(outdir);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outdir = process.argv[2] ?? join(packageRoot(), 'dist', 'web');
  const files = await buildDashboard(outdir);
  const gz = files.reduce((sum, f) => sum + f.gzipBytes, 0);
  process.stdout.write(`dashboard: ${files.map((f) => `${f.file} ${(f.bytes / 1024).toFixed(1)} KiB`).join(', ')}; ${(gz / 1024).toFixed(1)} KiB gzipped in all\n`);
}
