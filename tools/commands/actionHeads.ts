// The action heads and observation slots a train-agents run uses: as given, else those of its --init model (the
// metadata beside an exported agent.onnx); a fine-tuning run that names others is refused.
import fs from 'node:fs';
import { InputError } from '../../core/errors.ts';
import { modelMetaPath } from '../../simulation/agents/learned.ts';

/** What the heads' check reads of train-agents' options. */
export interface HeadOptions {
  init?: string;
  crossings?: number;
  steering?: string;
  accel?: string;
  heads?: string;
}

/** The action parameterisation's choices: option, allowed values (the first is the default), metadata reading. */
const ACTION_CHOICES = {
  steering: {
    option: '--steering',
    values: ['absolute', 'residual'],
    of: (s: InitSettings) => (s?.bins?.residualSteering === true ? 'residual' : 'absolute'),
  },
  accel: {
    option: '--accel',
    values: ['absolute', 'residual'],
    of: (s: InitSettings) => (s?.bins?.residualAccel === true ? 'residual' : 'absolute'),
  },
  heads: {
    option: '--heads',
    values: ['joint', 'factorised'],
    of: (s: InitSettings) => (s?.net?.factorisedHeads === true ? 'factorised' : 'joint'),
  },
} as const;

type InitSettings =
  | {
      bins?: { residualSteering?: boolean; residualAccel?: boolean };
      net?: { factorisedHeads?: boolean };
      observation?: { crossings?: number };
    }
  | undefined;

/** The settings of an exported --init model (its metadata beside the .onnx), or null. */
function initSettings(opts: HeadOptions): InitSettings | null {
  if (!opts.init?.endsWith('.onnx')) return null;
  const meta = modelMetaPath(opts.init);
  if (!fs.existsSync(meta)) return null;
  try {
    return (JSON.parse(fs.readFileSync(meta, 'utf8')) as { settings?: InitSettings }).settings;
  } catch (e) {
    throw new InputError(meta, `not valid JSON (${(e as Error).message})`);
  }
}

/** Crossing slots must match an --init model's: its weights encode that many (0 where it has none). */
function checkInitCrossings(opts: HeadOptions, init: InitSettings | null): void {
  if (!init) return;
  const have = init.observation?.crossings ?? 0;
  const want = opts.crossings ?? 0;
  if (have !== want)
    throw new InputError('--crossings', `${want}, but the --init model ${opts.init} has ${have}`);
}

/**
 * Steering and acceleration (absolute | residual) and heads (joint | factorised): as given, else those
 * of the --init model (an exported agent.onnx's metadata), else the first value. A fine-tuning run that
 * named others than its init model's would read the init's outputs as something they are not: refused.
 */
export function actionHeads(
  opts: HeadOptions,
  obsVersion: string,
): Record<keyof typeof ACTION_CHOICES, string> {
  const init = initSettings(opts) ?? null;
  checkInitCrossings(opts, init);
  const out = {} as Record<keyof typeof ACTION_CHOICES, string>;
  for (const [key, c] of Object.entries(ACTION_CHOICES) as [
    keyof typeof ACTION_CHOICES,
    (typeof ACTION_CHOICES)[keyof typeof ACTION_CHOICES],
  ][]) {
    const fromInit = init !== null ? c.of(init) : undefined;
    const v = opts[key] ?? fromInit ?? c.values[0];
    if (!(c.values as readonly string[]).includes(v))
      throw new InputError(c.option, `must be ${c.values.join(' or ')}, got '${v}'`);
    if (v === 'residual' && obsVersion !== '2')
      throw new InputError(
        c.option,
        'residual bins need --observation 2 (pure pursuit and IDM acceleration)',
      );
    if (fromInit !== undefined && v !== fromInit)
      throw new InputError(c.option, `${v}, but the --init model ${opts.init} has ${fromInit}`);
    out[key] = v;
  }
  return out;
}
