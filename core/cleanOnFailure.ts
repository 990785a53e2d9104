// Running a command's work so that a failure leaves no new output behind: the target and the parent folders
// the work created are removed when it throws (a full disk must not leave an empty or half-filled folder).
import fs from 'node:fs';
import path from 'node:path';

/** The missing ancestors of `target` and `target` itself (nearest the root first): what a run would create. */
function missingPaths(target: string): string[] {
  const missing: string[] = [];
  for (let p = path.resolve(target); !fs.existsSync(p);) {
    missing.unshift(p);
    const up = path.dirname(p);
    if (up === p) break;
    p = up;
  }
  return missing;
}

/**
 * Run `fn`; when it throws and `target` did not exist before, remove `target` (whatever it wrote there) and
 * each parent folder that `fn` created, if still empty. An existing target is left to the writer's own
 * atomic replacement.
 */
export async function cleanOnFailure<T>(target: string, fn: () => Promise<T> | T): Promise<T> {
  const created = missingPaths(target);
  try {
    return await fn();
  } catch (e) {
    const own = path.resolve(target);
    if (created.includes(own)) fs.rmSync(own, { recursive: true, force: true });
    for (const dir of created.filter((p) => p !== own).reverse()) {
      try {
        fs.rmdirSync(dir);
      } catch {
        // Not empty (another job wrote there meanwhile) or already gone: leave it.
      }
    }
    throw e;
  }
}
