// Building long-tail scenarios from scripted motions: paths along lane chains, piecewise-constant
// acceleration profiles, and agents whose state is a function of time, sampled at the scenario rate.
import { cumulativeArcLength, pointAtArcLength } from '../../core/geometry/polyline.ts';
import { allocateAgentTracks, type AgentType, type RoadMap, type Scenario } from '../scenario.ts';

export interface Pose2 {
  x: number;
  y: number;
  yaw: number;
}

/** A polyline with its arc lengths, sampled by arc length (extrapolated straight past either end). */
export interface Path {
  xy: Float64Array;
  cum: Float64Array;
  length: number;
}

export function makePath(xy: ArrayLike<number>): Path {
  const a = Float64Array.from(xy);
  const cum = cumulativeArcLength(a);
  return { xy: a, cum, length: cum[cum.length - 1] };
}

export function pathPose(p: Path, s: number): Pose2 {
  const q = pointAtArcLength(p.xy, s, p.cum);
  const over = s > p.length ? s - p.length : s < 0 ? s : 0;
  return { x: q.x + over * Math.cos(q.heading), y: q.y + over * Math.sin(q.heading), yaw: q.heading };
}

/** The centrelines of lanes `ids` joined into one path (shared end points dropped). */
export function laneChain(map: RoadMap, ids: readonly number[]): Path {
  const pts: number[] = [];
  for (const id of ids) {
    const l = map.lanes.find((x) => x.id === id);
    if (!l) throw new Error(`laneChain: no lane ${id}`);
    for (let i = 0; i < l.xy.length; i += 2) {
      const n = pts.length;
      if (n >= 2 && Math.hypot(pts[n - 2] - l.xy[i], pts[n - 1] - l.xy[i + 1]) < 1e-3) continue;
      pts.push(l.xy[i], l.xy[i + 1]);
    }
  }
  return makePath(pts);
}

/** A phase of a speed profile: from time `fromS` on, accelerate at `accel` (speed kept in [0, vmax]). */
export interface Phase {
  fromS: number;
  accel: number;
}

/**
 * Distance and speed over time (t in seconds from the current step, negative = history at constant
 * speed) for a start speed and phases, integrated exactly per millisecond-scale sub-step.
 */
export function speedProfile(
  v0: number,
  phases: readonly Phase[],
  vmax = Infinity,
): (t: number) => { s: number; v: number } {
  const dt = 0.005;
  const horizon = 20;
  const n = Math.ceil(horizon / dt) + 1;
  const S = new Float64Array(n);
  const V = new Float64Array(n);
  V[0] = v0;
  const sorted = [...phases].sort((a, b) => a.fromS - b.fromS);
  for (let i = 1; i < n; i++) {
    const t = (i - 1) * dt;
    let a = 0;
    for (const p of sorted) if (t >= p.fromS - 1e-9) a = p.accel;
    const v1 = Math.min(vmax, Math.max(0, V[i - 1] + a * dt));
    S[i] = S[i - 1] + 0.5 * (V[i - 1] + v1) * dt;
    V[i] = v1;
  }
  return (t: number) => {
    if (t <= 0) return { s: v0 * t, v: v0 };
    const f = Math.min(n - 1, t / dt);
    const i = Math.floor(f);
    const u = f - i;
    const j = Math.min(n - 1, i + 1);
    return { s: S[i] + u * (S[j] - S[i]), v: V[i] + u * (V[j] - V[i]) };
  };
}

export interface AgentSpec {
  id: number;
  type: AgentType;
  length: number;
  width: number;
  height: number;
  controlled?: boolean;
  ego?: boolean;
  route?: number[];
  /** Pose at time t (seconds from the current step); null = not present. Velocity is differenced. */
  pose: (t: number) => Pose2 | null;
}

export interface ScenarioFrame {
  id: string;
  source: string;
  map: RoadMap;
  numSteps: number;
  currentStep: number;
  dtS: number;
}

/** Sample every agent at every step into a Scenario (velocities by central differences of the poses). */
export function buildScenario(frame: ScenarioFrame, agents: readonly AgentSpec[]): Scenario {
  const T = frame.numSteps;
  const n = agents.length;
  const a = allocateAgentTracks(n, T);
  const eps = 0.01;
  agents.forEach((spec, i) => {
    a.ids[i] = spec.id;
    a.types[i] = spec.type;
    a.length[i] = spec.length;
    a.width[i] = spec.width;
    a.height[i] = spec.height;
    for (let t = 0; t < T; t++) {
      const time = (t - frame.currentStep) * frame.dtS;
      const p = spec.pose(time);
      if (!p) continue;
      const k = i * T + t;
      const p0 = spec.pose(time - eps) ?? p;
      const p1 = spec.pose(time + eps) ?? p;
      const span = (p0 === p ? 0 : eps) + (p1 === p ? 0 : eps);
      a.x[k] = p.x;
      a.y[k] = p.y;
      a.z[k] = spec.height / 2;
      a.yaw[k] = p.yaw;
      a.vx[k] = span > 0 ? (p1.x - p0.x) / span : 0;
      a.vy[k] = span > 0 ? (p1.y - p0.y) / span : 0;
      a.valid[k] = 1;
    }
  });
  const egoIndex = agents.findIndex((s) => s.ego);
  const goalX = new Float32Array(n).fill(NaN);
  const goalY = new Float32Array(n).fill(NaN);
  if (egoIndex >= 0) {
    goalX[egoIndex] = a.x[egoIndex * T + T - 1];
    goalY[egoIndex] = a.y[egoIndex * T + T - 1];
  }
  return {
    id: frame.id,
    dtS: frame.dtS,
    numSteps: T,
    currentStep: frame.currentStep,
    map: frame.map,
    agents: a,
    egoIndex,
    controlled: Uint8Array.from(agents, (s) => (s.controlled ? 1 : 0)),
    goalX,
    goalY,
    routes: agents.map((s) => s.route ?? []),
    source: frame.source,
  };
}
