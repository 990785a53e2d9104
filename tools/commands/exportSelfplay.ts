// `drivekit export --generator selfplay|adversarial|longtail --count N --out <dir>`: a synthetic scenario dataset
// for autonomy training — drivekit scenarios (Arrow), Parquet tables, WOMD TFRecord, GPUDrive JSON — and its datasheet.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { makeDirs } from '../../core/dirs.ts';
import { createProgress } from '../../core/progress.ts';
import { writeWomdFile } from '../../datasets/womd.ts';
import { learnedAgent, SHIPPED_AGENT_MODEL } from '../../simulation/agents/learned.ts';
import { buildExportTables } from '../../simulation/export/exportTables.ts';
import { scenarioToGpudrive } from '../../simulation/export/gpudriveExport.ts';
import { writeParquetTables } from '../../simulation/export/parquetExport.ts';
import { scenarioToWomd } from '../../simulation/export/womdExport.ts';
import { exportLidarLog } from '../../simulation/export/lidarExport.ts';
import { LIDAR_MODELS, type LidarModel } from '../../simulation/lidar/beams.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { buildDatasheet, datasheetMarkdown } from '../../simulation/selfplay/datasheet.ts';
import {
  generateScenarioSet,
  loadTeacher,
  SCENARIO_GENERATORS,
  type ScenarioGenerator,
} from '../../simulation/selfplay/scenarioSet.ts';

/** The shipped teachers: the asymmetric one and the adversarial baseline (no solvability check). */
export const SHIPPED_TEACHERS: Record<'selfplay' | 'adversarial', string> = {
  selfplay: fileURLToPath(new URL('../../models/selfplay-teacher.onnx', import.meta.url)),
  adversarial: fileURLToPath(new URL('../../models/selfplay-adversarial-teacher.onnx', import.meta.url)),
};

/** At most this many scenarios per export (each is judged by a student rollout). */
export const MAX_GENERATED_SCENARIOS = 10_000;

export interface GeneratorExportOptions {
  generator: string;
  count?: number;
  seed?: number;
  out?: string;
  teacher?: string;
  student?: string;
  /** Also render the ego's simulated LiDAR of every scenario (a log per scenario under lidar/). */
  lidar?: boolean;
  lidarModel?: string;
  /** Frames rendered per scenario from its current step on (default: to its end). */
  lidarFrames?: number;
  /** LiDAR worker threads (0 = this thread). */
  threads?: number;
  json?: boolean;
  /** The command recorded in the datasheet (default: this process's command line). */
  command?: string;
}

export interface GeneratorExportResult {
  generator: ScenarioGenerator;
  scenarios: number;
  out: string;
  files: string[];
  datasheet: Record<string, unknown>;
}

/** Where a generator export goes (default out/scenarios-<generator>). */
export function generatorTarget(opts: GeneratorExportOptions): string {
  return opts.out ?? path.join('out', `scenarios-${opts.generator}`);
}

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** How a model was made: its training command, and the command that changed its settings after (agent-settings). */
function provenance(onnx: string): { trainedBy?: string; settingsBy?: string } {
  try {
    const meta = JSON.parse(fs.readFileSync(onnx.replace(/\.onnx$/, '') + '.json', 'utf8')) as {
      data?: { command?: string; derived?: { command?: string } };
    };
    return {
      ...(meta.data?.command ? { trainedBy: meta.data.command } : {}),
      ...(meta.data?.derived?.command ? { settingsBy: meta.data.derived.command } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * Generate, label and write the set. Everything is written into a temporary folder beside the target and
 * renamed into place at the end: a failure leaves no half-written dataset.
 */
export async function runGeneratorExport(opts: GeneratorExportOptions): Promise<GeneratorExportResult> {
  if (!SCENARIO_GENERATORS.includes(opts.generator as ScenarioGenerator))
    throw new InputError(
      '--generator',
      `unknown generator '${opts.generator}' (known: ${SCENARIO_GENERATORS.join(', ')})`,
    );
  const generator = opts.generator as ScenarioGenerator;
  const count = opts.count ?? 20;
  if (!Number.isInteger(count) || count < 1 || count > MAX_GENERATED_SCENARIOS)
    throw new InputError('--count', `must be a whole number in 1…${MAX_GENERATED_SCENARIOS}, got ${count}`);
  if (generator === 'longtail' && opts.teacher !== undefined)
    throw new InputError('--teacher', 'the longtail generator has no teacher');
  const lidarModel = (opts.lidarModel ?? 'hdl64') as LidarModel;
  if (opts.lidar && !LIDAR_MODELS.includes(lidarModel))
    throw new InputError(
      '--lidar-model',
      `unknown model '${lidarModel}' (known: ${LIDAR_MODELS.join(', ')})`,
    );
  const seed = opts.seed ?? 1;
  const studentFile = opts.student ?? SHIPPED_AGENT_MODEL;
  const teacherFile = generator === 'longtail' ? undefined : (opts.teacher ?? SHIPPED_TEACHERS[generator]);
  const student = learnedAgent(studentFile, 1);
  const teacher = teacherFile ? await loadTeacher(teacherFile) : undefined;
  const out = generatorTarget(opts);
  const tmp = `${path.resolve(out)}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  try {
    const bar = createProgress(`export ${generator}`, count, { silent: opts.json });
    const set = await generateScenarioSet({
      generator,
      count,
      seed,
      student: () => student(),
      teacher,
      onScenario: (n) => bar.update(n),
    });
    bar.stop();
    makeDirs(tmp);
    const stem = (i: number) =>
      `${String(i).padStart(4, '0')}-${set.scenarios[i].scenario.id.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
    const scenarios = set.scenarios.map((x) => x.scenario);
    scenarios.forEach((s, i) => saveScenario(s, path.join(tmp, 'scenarios', stem(i))));
    makeDirs(path.join(tmp, 'parquet'));
    writeParquetTables(
      buildExportTables(scenarios.map((s) => ({ scenario: s, rollouts: [s.agents] }))),
      path.join(tmp, 'parquet'),
    );
    makeDirs(path.join(tmp, 'womd'));
    writeWomdFile(path.join(tmp, 'womd', 'scenarios.tfrecord'), scenarios.map(scenarioToWomd));
    makeDirs(path.join(tmp, 'gpudrive'));
    scenarios.forEach((s, i) =>
      writeFileAtomicSync(
        path.join(tmp, 'gpudrive', `${stem(i)}.json`),
        JSON.stringify(scenarioToGpudrive(s)),
      ),
    );
    if (opts.lidar) {
      const lidarBar = createProgress('lidar', scenarios.length, { silent: opts.json });
      for (let i = 0; i < scenarios.length; i++) {
        await exportLidarLog(scenarios[i], path.join(tmp, 'lidar', stem(i)), {
          model: lidarModel,
          frames: opts.lidarFrames,
          workers: opts.threads,
        });
        lidarBar.update(i + 1);
      }
      lidarBar.stop();
    }
    const files: Record<string, string> = {
      scenarios: 'scenarios/ (drivekit scenario directories, Arrow; the ego log is the teacher solution)',
      parquet: 'parquet/ (the scenario export tables: agents, tracks, map)',
      womd: 'womd/scenarios.tfrecord (Waymo Open Motion Scenario protos)',
      gpudrive: 'gpudrive/*.json (GPUDrive / Nocturne scenario JSON)',
      datasheet: 'datasheet.md, datasheet.json (per-scenario labels)',
    };
    if (opts.lidar)
      files.lidar = `lidar/*/ (the ego's simulated ${lidarModel} LiDAR along the teacher's solution: a drivekit log with poses and box labels per scenario)`;
    const models: Record<string, { path: string; sha256: string; trainedBy?: string; settingsBy?: string }> =
      {
        student: {
          path: path.relative(process.cwd(), studentFile),
          sha256: sha256(studentFile),
          ...provenance(studentFile),
        },
      };
    if (teacherFile)
      models.teacher = {
        path: path.relative(process.cwd(), teacherFile),
        sha256: sha256(teacherFile),
        ...provenance(teacherFile),
      };
    const sheet = buildDatasheet({
      generator,
      seed,
      set,
      command: opts.command ?? ['drivekit', ...process.argv.slice(2)].join(' '),
      models,
      files,
    });
    writeFileAtomicSync(path.join(tmp, 'datasheet.json'), JSON.stringify(sheet, null, 1) + '\n');
    writeFileAtomicSync(path.join(tmp, 'datasheet.md'), datasheetMarkdown(sheet));
    fs.rmSync(out, { recursive: true, force: true });
    makeDirs(path.dirname(path.resolve(out)));
    fs.renameSync(tmp, out);
    const written = [
      'scenarios',
      'parquet',
      'womd/scenarios.tfrecord',
      'gpudrive',
      'datasheet.md',
      'datasheet.json',
      ...(opts.lidar ? ['lidar'] : []),
    ];
    return {
      generator,
      scenarios: scenarios.length,
      out,
      files: written.map((f) => path.join(out, f)),
      datasheet: sheet,
    };
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  } finally {
    await teacher?.dispose();
  }
}
