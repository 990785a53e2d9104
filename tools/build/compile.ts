// Compiles the TypeScript sources into plain JavaScript under dist/ (one .js per .ts, same tree), so
// the CLI starts without a TypeScript loader; run by `npm run build` and by `npm ci` (the `prepare` script).
// Transpiles with esbuild (tsx's own compiler): types are stripped, nothing is bundled.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildNativeAddons, type NativeBuildResult } from './native.ts';

/** Folders whose .ts files make up the program (tests and benches' fixtures stay TypeScript). */
export const SOURCE_DIRS = ['core', 'datasets', 'perception', 'worldmodel', 'simulation', 'tools'];
/** Files and folders beside the sources that modules reach by a path relative to themselves. */
const ROOT_LINKS = ['package.json', 'models'];
/** Written last: its presence says the build finished; its mtime is what staleness is judged against. */
export const BUILD_STAMP = 'build.json';

interface EsbuildTransform {
  transform(
    code: string,
    options: Record<string, unknown>,
  ): Promise<{ code: string; warnings: { text: string }[] }>;
}

/** esbuild as tsx resolves it, so the build needs nothing that tsx does not already install. */
function loadEsbuild(): EsbuildTransform {
  const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  return fromTsx('esbuild') as EsbuildTransform;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Every program source file (relative paths), for the build and for bin/drivekit.js's staleness check. */
export function sourceFiles(root: string): string[] {
  return SOURCE_DIRS.flatMap((d) =>
    fs.existsSync(path.join(root, d)) ? walk(path.join(root, d)).map((f) => path.relative(root, f)) : [],
  );
}

/**
 * Relative `.ts` specifiers in string literals (static and dynamic imports, `new URL('./w.ts', …)` of
 * worker modules) become `.js` when the file they name is a source file, so the compiled tree only
 * ever loads compiled files.
 */
export function rewriteTsSpecifiers(code: string, fileDir: string): string {
  return code.replace(/(['"])(\.{1,2}\/[^'"\n]*?)\.ts\1/g, (whole, quote: string, stem: string) =>
    fs.existsSync(path.resolve(fileDir, stem + '.ts')) ? `${quote}${stem}.js${quote}` : whole,
  );
}

function linkTo(target: string, link: string): void {
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.rmSync(link, { force: true, recursive: true });
  fs.symlinkSync(path.relative(path.dirname(link), target), link);
}

/** Builds `root`/dist from scratch (the TypeScript, then the native addons); returns what it built. */
export async function compile(root: string): Promise<{ files: number; native: NativeBuildResult }> {
  const esbuild = loadEsbuild();
  const dist = path.join(root, 'dist');
  const next = path.join(root, `dist.tmp-${process.pid}`);
  fs.rmSync(next, { recursive: true, force: true });
  let compiled = 0;
  for (const rel of sourceFiles(root)) {
    const src = path.join(root, rel);
    if (rel.endsWith('.ts') && !rel.endsWith('.d.ts')) {
      const { code } = await esbuild.transform(fs.readFileSync(src, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcefile: src,
        // The repository's tsconfig semantics: imports kept as written, standard class fields.
        tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
      });
      const out = path.join(next, rel.replace(/\.ts$/, '.js'));
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, rewriteTsSpecifiers(code, path.dirname(src)));
      compiled++;
    } else if (!rel.endsWith('.d.ts')) {
      // Page assets, scripts and data next to the code are read by path: point at the originals.
      linkTo(src, path.join(next, rel));
    }
  }
  for (const name of ROOT_LINKS) {
    if (fs.existsSync(path.join(root, name))) linkTo(path.join(root, name), path.join(next, name));
  }
  const native = buildNativeAddons(root, next);
  fs.writeFileSync(
    path.join(next, BUILD_STAMP),
    JSON.stringify({ builtAt: new Date().toISOString(), files: compiled }) + '\n',
  );
  // Swap the finished tree in: a failed build never leaves a half-written dist/ behind.
  const old = path.join(root, `dist.old-${process.pid}`);
  if (fs.existsSync(dist)) fs.renameSync(dist, old);
  fs.renameSync(next, dist);
  fs.rmSync(old, { recursive: true, force: true });
  return { files: compiled, native };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const t0 = performance.now();
  const { files, native } = await compile(root);
  const addons = native.built.length ? `, native ${native.built.join(', ')}` : '';
  process.stderr.write(
    `drivekit build: ${files} files${addons} → dist/ in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  for (const s of native.skipped) {
    process.stderr.write(`drivekit build: native ${s.name} not built, TypeScript used instead: ${s.why}\n`);
  }
}
