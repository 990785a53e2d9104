// Atomic file output: write to a temporary sibling, fsync, then rename over the target, so a killed
// job leaves either the old file or the new one, never half of one.
import fs from 'node:fs';
import path from 'node:path';

export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}-${Date.now()}`);
}

export async function writeFileAtomic(target: string, data: Uint8Array | string): Promise<void> {
  const tmp = tempPathFor(target);
  const fh = await fs.promises.open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(tmp, target);
}

export function writeFileAtomicSync(target: string, data: Uint8Array | string): void {
  const tmp = tempPathFor(target);
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, target);
}

/** Stream writer that becomes visible at `target` only when `commit()` is called. */
export class AtomicFileStream {
  private readonly tmp: string;
  private readonly fd: number;
  private position = 0;
  private done = false;

  constructor(readonly target: string) {
    this.tmp = tempPathFor(target);
    this.fd = fs.openSync(this.tmp, 'w');
  }

  write(chunk: Uint8Array): void {
    let off = 0;
    while (off < chunk.length) {
      off += fs.writeSync(this.fd, chunk, off, chunk.length - off, this.position + off);
    }
    this.position += chunk.length;
  }

  get bytesWritten(): number {
    return this.position;
  }

  commit(): void {
    if (this.done) return;
    this.done = true;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    fs.renameSync(this.tmp, this.target);
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    fs.closeSync(this.fd);
    fs.rmSync(this.tmp, { force: true });
  }
}
