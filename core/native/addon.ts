// Loads drivekit's optional native addons (core/native/<name>.cc, compiled into dist/native/<name>.node
// by `npm run build`, which `npm ci` runs); every caller keeps a TypeScript path for when one is absent.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The addons and what each exports. */
export interface NativeAddons {
  /** CRC32C of `bytes` continuing from a finished `crc` (0 for none), unsigned; the CPU's instruction. */
  crc32c: { crc32c(bytes: Uint8Array, crc: number): number };
}

const loaded = new Map<string, { addon: object | null; problem: string }>();

/** Where the build puts an addon, seen from this file in the sources and in dist/. */
function candidates(name: string): string[] {
  return [`../../dist/native/${name}.node`, `../../native/${name}.node`].map((c) =>
    fileURLToPath(new URL(c, import.meta.url)),
  );
}

function load(name: string, exportName: string): { addon: object | null; problem: string } {
  if (process.env.DRIVEKIT_NATIVE === '0') return { addon: null, problem: 'turned off by DRIVEKIT_NATIVE=0' };
  const file = candidates(name).find((f) => fs.existsSync(f));
  if (!file) {
    return {
      addon: null,
      problem: `${name}.node is not built (\`npm run build\` compiles it where a C++ compiler is found)`,
    };
  }
  try {
    const mod = createRequire(import.meta.url)(file) as Record<string, unknown>;
    if (typeof mod[exportName] !== 'function') {
      return { addon: null, problem: `${file} exports no ${exportName} (this CPU lacks the instruction)` };
    }
    return { addon: mod, problem: '' };
  } catch (e) {
    // Built for another Node ABI or platform: say so, and run without it.
    return { addon: null, problem: `${file} could not be loaded (${(e as Error).message.split('\n')[0]})` };
  }
}

/** The addon `name`, or null (then `nativeAddonProblem(name)` says why). `DRIVEKIT_NATIVE=0` turns all off. */
export function nativeAddon<K extends keyof NativeAddons>(name: K): NativeAddons[K] | null {
  let entry = loaded.get(name);
  if (!entry) loaded.set(name, (entry = load(name, name)));
  return entry.addon as NativeAddons[K] | null;
}

/** Why the addon `name` is not in use ('' when it is). */
export function nativeAddonProblem(name: keyof NativeAddons): string {
  nativeAddon(name);
  return loaded.get(name)!.problem;
}
