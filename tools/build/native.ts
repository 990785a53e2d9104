// Compiles the optional native addons (core/native/*.cc, Node-API) into <out>/native/<name>.node with the
// system C++ compiler and Node's own headers; a machine without either keeps the TypeScript paths.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Where Node's headers may be: beside the running binary, then npm's `nodedir` convention. */
function nodeHeaderDirs(): string[] {
  const prefix = (process.config.variables as { node_prefix?: string }).node_prefix ?? '';
  return [
    path.join(path.dirname(process.execPath), '..', 'include', 'node'),
    path.join(prefix, 'include', 'node'),
  ];
}

export interface NativeBuildResult {
  built: string[];
  /** Addons not built, each with the reason (the program runs without them). */
  skipped: { name: string; why: string }[];
}

/** Compiles every core/native/*.cc of `root` into `outDir`/native/. Never throws for a missing toolchain. */
export function buildNativeAddons(root: string, outDir: string): NativeBuildResult {
  const sources = fs.existsSync(path.join(root, 'core', 'native'))
    ? fs.readdirSync(path.join(root, 'core', 'native')).filter((f) => f.endsWith('.cc'))
    : [];
  const result: NativeBuildResult = { built: [], skipped: [] };
  const headers = nodeHeaderDirs().find((d) => fs.existsSync(path.join(d, 'node_api.h')));
  const compiler = process.env.CXX || 'c++';
  for (const file of sources) {
    const name = file.replace(/\.cc$/, '');
    if (!headers) {
      result.skipped.push({ name, why: `no node_api.h in ${nodeHeaderDirs().join(' or ')}` });
      continue;
    }
    fs.mkdirSync(path.join(outDir, 'native'), { recursive: true });
    const out = path.join(outDir, 'native', `${name}.node`);
    const args = [
      '-O3',
      '-std=c++17',
      '-fPIC',
      '-shared',
      `-I${headers}`,
      path.join(root, 'core', 'native', file),
    ];
    // Node-API symbols resolve against the running node at load time.
    if (process.platform === 'darwin') args.push('-undefined', 'dynamic_lookup');
    try {
      execFileSync(compiler, [...args, '-o', `${out}.tmp`], { stdio: ['ignore', 'ignore', 'pipe'] });
      fs.renameSync(`${out}.tmp`, out);
      result.built.push(name);
    } catch (e) {
      fs.rmSync(`${out}.tmp`, { force: true });
      const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim().split('\n')[0];
      result.skipped.push({ name, why: `${compiler} failed: ${stderr || (e as Error).message}` });
    }
  }
  return result;
}
