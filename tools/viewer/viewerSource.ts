// What the viewer shows, whatever it was opened on (a log, a sim rollout directory, a scenario, a live
// stream): an info record, and per frame the points (compact binary), the boxes, agents and a forecast.

/** Flat box rows: 8 numbers a box — cx, cy, cz, length, width, height, yaw, track id (−1: none). */
export const BOX_STRIDE = 8;

/** Flat agent rows: 9 numbers an agent — x, y, z, length, width, height, yaw, agent id, type code. */
export const AGENT_STRIDE = 9;

/** Type codes of agent rows (the page colours by them). */
export const AGENT_TYPE_CODE: Record<string, number> = { vehicle: 0, pedestrian: 1, cyclist: 2, other: 3 };

export type ViewerKind = 'log' | 'rollout' | 'scenario' | 'live';

/** GET /api/info (snake_case: the page and any other client read it as JSON). */
export interface ViewerInfo {
  kind: ViewerKind;
  name: string;
  /** Frames (log sweeps or scenario steps); in live mode the frames received so far. */
  frame_count: number;
  /** First frame still held (live mode keeps a window of recent frames; 0 otherwise). */
  first_frame: number;
  rate_hz: number;
  has_points: boolean;
  /** Box sets, by file name without .arrow (labels, detections, tracks, detector, …) or stream topic. */
  box_sets: string[];
  /** Agent sets (scenario: 'scenario'; rollout: 'rollout' and 'logged'). */
  agent_sets: string[];
  has_map: boolean;
  has_forecast: boolean;
  live: boolean;
  /** Live mode: stream messages skipped (malformed, or neither SensorFrame nor Boxes). */
  skipped?: number;
  /** Where the log's intensity scale comes from (`drivekit.intensity`), for the legend. */
  intensity_scale?: string;
  /** A sim output folder: every scenario with its rollout count, and the one shown (the page's picker). */
  rollout_choice?: { scenarios: { id: string; rollouts: number }[]; scenario: string; rollout: number };
}

/** Which scenario and rollout of a sim output folder a request is about (`?scenario=…&rollout=…`). */
export interface ViewChoice {
  scenario?: string;
  rollout?: number;
}

/** Per-agent flag bits of a rollout frame (FrameScene.flags). */
export const AGENT_FLAG = { collision: 1, offroad: 2 } as const;

/** The choice in a request's query (`scenario`, `rollout`); absent keys keep the source's default. */
export function viewChoice(q: URLSearchParams): ViewChoice {
  const r = q.get('rollout');
  return {
    ...(q.get('scenario') ? { scenario: q.get('scenario')! } : {}),
    ...(r !== null && /^\d+$/.test(r) ? { rollout: Number(r) } : {}),
  };
}

/** GET /frames/:i/scene: everything but the points of a frame. */
export interface FrameScene {
  frame_index: number;
  /** world_from_vehicle of the frame (the ego), row-major. */
  pose: number[];
  boxes: Record<string, number[]>;
  agents: Record<string, number[]>;
  ego_agent_id: number | null;
  /** The forecast shown at this frame (predicted sweep whose target is this frame), if any. */
  forecast: { start_frame: number; horizon_s: number; points: number } | null;
  /**
   * Rollouts: per agent set, one number per agent row — AGENT_FLAG bits: 1 the agent overlaps another
   * at this step, 2 a vehicle off the drivable area (the Sim Agents collision and off-road tests).
   */
  flags?: Record<string, number[]>;
}

/** GET /api/map: polylines [x0, y0, x1, y1, …] in the world frame, by kind. */
export interface MapJson {
  /** Height (m) the 2-D map is drawn at: the agents' ground at the scenario's current step. */
  ground_z: number;
  lanes: number[][];
  road_edges: number[][];
  crosswalks: number[][];
  stop_lines: number[][];
}

/** Live-mode notifications, forwarded to the page as server-sent events. */
export type LiveEvent =
  | { type: 'frame'; frame_index: number; points: number }
  | { type: 'boxes'; frame_index: number; set: string }
  | { type: 'end'; reason: string };

export interface ViewerSource {
  /** `view`: a sim output folder's scenario and rollout (other sources ignore it). */
  info(view?: ViewChoice): ViewerInfo;
  /** The frame's points as a compact binary frame (frameWire.ts), or null when there is no such frame. */
  framePoints(i: number): Promise<Buffer | null>;
  /** The frame's points as an Arrow IPC stream (one SensorFrame batch), or null. */
  frameArrow(i: number): Promise<Buffer | null>;
  scene(i: number, view?: ViewChoice): Promise<FrameScene | null>;
  /** The predicted sweep whose target is frame i, as a compact binary frame posed at its start frame. */
  forecastPoints(i: number): Promise<Buffer | null>;
  map(view?: ViewChoice): MapJson | null;
  /** Live mode: a listener for new frames; returns its remover. */
  subscribe?(listener: (e: LiveEvent) => void): () => void;
  close(): Promise<void>;
}

/** Rows of a whole-log box set grouped by frame, for constant-time per-frame lookup. */
export function rowsByFrame(frameIndex: Int32Array): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (let r = 0; r < frameIndex.length; r++) {
    const f = frameIndex[r];
    let rows = m.get(f);
    if (!rows) m.set(f, (rows = []));
    rows.push(r);
  }
  return m;
}
