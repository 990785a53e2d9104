// onnxruntime-node sessions for drivekit graphs: device (CPU, or the CUDA execution provider when
// its binaries are installed), thread count, graph optimisation and profiling in one typed config.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import ort from 'onnxruntime-node';

export type Device = 'cpu' | 'cuda';

/** Runtime settings; defaults in RUNTIME_DEFAULTS. */
export interface RuntimeOptions {
  /** 'cpu' or 'cuda' (needs onnxruntime-node installed with ONNXRUNTIME_NODE_INSTALL=cuda12). */
  device?: Device;
  /** Intra-op threads (default: every core, os.availableParallelism()). */
  threads?: number;
  /** onnxruntime graph optimisation level. */
  optimization?: 'disabled' | 'basic' | 'extended' | 'all';
  /** Write an onnxruntime profile (chrome-trace JSON) with this path prefix. */
  profilePrefix?: string;
  /** onnxruntime log level: 0 verbose … 3 errors only (default 3). */
  logLevel?: 0 | 1 | 2 | 3 | 4;
  /** onnxruntime's CPU memory arena (default on); off, freed buffers go back to malloc. */
  memArena?: boolean;
  /** Let idle intra-op threads spin-wait for work (default on, onnxruntime's default). */
  spin?: boolean;
  /**
   * onnxruntime's memory pattern: from the second run, all intermediates come from one planned block.
   * Default off: on training graphs it kept the first run's arena chunks as well, doubling peak RSS
   * (token_transformer 2.8 → 1.5 GB, bev_unet 950 → 555 MB without it) for no speed gain.
   */
  memPattern?: boolean;
}

export const RUNTIME_DEFAULTS = {
  device: 'cpu' as Device,
  threads: 0, // 0 = all cores
  optimization: 'all' as const,
  logLevel: 3 as const,
  memArena: true,
  spin: true,
  memPattern: false,
};

/** Just the RuntimeOptions fields of a larger options object. */
export function runtimeOptions(o: RuntimeOptions): RuntimeOptions {
  const { device, threads, optimization, profilePrefix, logLevel, memArena, spin, memPattern } = o;
  return { device, threads, optimization, profilePrefix, logLevel, memArena, spin, memPattern };
}

/** Thrown when the requested device cannot be used; the message says how to fix it. */
export class DeviceError extends Error {
  override name = 'DeviceError';
}

/** Where onnxruntime-node keeps its native libraries (the CUDA provider lands here when installed). */
export function onnxruntimeBinaryDir(): string {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('onnxruntime-node/package.json'));
  return path.join(pkg, 'bin', 'napi-v6', process.platform, process.arch);
}

/** Is onnxruntime's CUDA execution provider installed? */
export function cudaAvailable(): boolean {
  return fs.existsSync(path.join(onnxruntimeBinaryDir(), 'libonnxruntime_providers_cuda.so'));
}

export function sessionOptions(opts: RuntimeOptions = {}): ort.InferenceSession.SessionOptions {
  const device = opts.device ?? RUNTIME_DEFAULTS.device;
  if (device !== 'cpu' && device !== 'cuda')
    throw new DeviceError(`unknown device '${String(device)}' (use 'cpu' or 'cuda')`);
  const threads = opts.threads || os.availableParallelism();
  const o: ort.InferenceSession.SessionOptions = {
    executionProviders: device === 'cuda' ? ['cuda', 'cpu'] : ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: opts.optimization ?? RUNTIME_DEFAULTS.optimization,
    enableCpuMemArena: opts.memArena ?? RUNTIME_DEFAULTS.memArena,
    enableMemPattern: opts.memPattern ?? RUNTIME_DEFAULTS.memPattern,
    logSeverityLevel: opts.logLevel ?? RUNTIME_DEFAULTS.logLevel,
  };
  if (!(opts.spin ?? RUNTIME_DEFAULTS.spin)) {
    o.extra = { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } };
  }
  if (opts.profilePrefix) {
    o.enableProfiling = true;
    o.profileFilePrefix = opts.profilePrefix;
  }
  return o;
}

/** Create a session for ONNX bytes; a missing CUDA provider becomes a DeviceError saying how to install it. */
export async function createSession(
  bytes: Uint8Array,
  opts: RuntimeOptions = {},
): Promise<ort.InferenceSession> {
  const o = sessionOptions(opts);
  if (opts.device === 'cuda' && !cudaAvailable()) {
    throw new DeviceError(
      `device 'cuda' needs onnxruntime's CUDA execution provider, which is not installed ` +
        `(no libonnxruntime_providers_cuda.so in ${onnxruntimeBinaryDir()}); reinstall with ` +
        `ONNXRUNTIME_NODE_INSTALL=cuda12 npm install onnxruntime-node, or use device 'cpu'`,
    );
  }
  try {
    return await ort.InferenceSession.create(bytes, o);
  } catch (e) {
    if (opts.device === 'cuda') {
      throw new DeviceError(
        `device 'cuda': onnxruntime could not start the CUDA provider: ${String(e).split('\n')[0]}`,
      );
    }
    throw e;
  }
}

export { ort };
