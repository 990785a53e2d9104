// Point colours of the viewer (by height, intensity or ring) and the colours of boxes, agents and map.
// The point ramps never produce the ground-truth box magenta, so boxes stay visible on any cloud.

/** A 256-entry RGB lookup table interpolated between evenly spaced stops. */
function ramp(stops) {
  const lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (stops.length - 1);
    const k = Math.min(stops.length - 2, Math.floor(t));
    const f = t - k;
    for (let c = 0; c < 3; c++) lut[3 * i + c] = Math.round(stops[k][c] * (1 - f) + stops[k + 1][c] * f);
  }
  return lut;
}

// viridis (matplotlib), five stops: dark blue-purple → teal → green → yellow.
export const HEIGHT_STOPS = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];
const HEIGHT_LUT = ramp(HEIGHT_STOPS);
// grey → warm white: intensity reads as brightness.
export const INTENSITY_STOPS = [
  [60, 60, 70],
  [140, 140, 150],
  [230, 200, 150],
  [255, 250, 235],
];
const INTENSITY_LUT = ramp(INTENSITY_STOPS);
export const RING_PALETTE = [
  [230, 80, 60],
  [240, 160, 50],
  [240, 230, 80],
  [100, 220, 90],
  [60, 210, 220],
  [70, 120, 240],
  [150, 110, 250],
  [235, 235, 235],
];

/** Height range in the vehicle frame (m): ground of a roof-mounted sensor ≈ −1.7 up to tall vehicles. */
export const HEIGHT_RANGE_M = [-2.5, 2.5];

/** RGB bytes per point for the frame: by vehicle-frame z, by intensity (scaled to its 99th percentile), or ring. */
export function pointColours(frame, mode, out) {
  const n = frame.count;
  const rgb = out && out.length >= 3 * n ? out.subarray(0, 3 * n) : new Uint8Array(3 * n);
  if (mode === 'ring' && frame.ring) {
    for (let i = 0; i < n; i++) {
      const c = RING_PALETTE[frame.ring[i] % RING_PALETTE.length];
      rgb[3 * i] = c[0];
      rgb[3 * i + 1] = c[1];
      rgb[3 * i + 2] = c[2];
    }
    return rgb;
  }
  let lut = HEIGHT_LUT;
  let lo = HEIGHT_RANGE_M[0];
  let hi = HEIGHT_RANGE_M[1];
  let values = frame.xyz;
  let stride = 3;
  let offset = 2;
  if (mode === 'intensity' && frame.intensity) {
    lut = INTENSITY_LUT;
    values = frame.intensity;
    stride = 1;
    offset = 0;
    lo = 0;
    hi = intensityScale(frame.intensity);
  }
  const scale = 255 / Math.max(1e-6, hi - lo);
  for (let i = 0; i < n; i++) {
    let k = ((values[stride * i + offset] - lo) * scale) | 0;
    k = k < 0 ? 0 : k > 255 ? 255 : k;
    rgb[3 * i] = lut[3 * k];
    rgb[3 * i + 1] = lut[3 * k + 1];
    rgb[3 * i + 2] = lut[3 * k + 2];
  }
  return rgb;
}

/** The 99th percentile of a sample of the intensities (sources use 0–1, 0–255 or 0–65535). */
function intensityScale(v) {
  const step = Math.max(1, Math.floor(v.length / 2000));
  const s = [];
  for (let i = 0; i < v.length; i += step) s.push(v[i]);
  s.sort((a, b) => a - b);
  return s.length ? Math.max(1e-6, s[Math.floor(0.99 * (s.length - 1))]) : 1;
}

/** Box sets by the name of their file in a log; other sets (stream topics, new stage outputs) cycle OTHER. */
export const BOX_COLOURS = {
  labels: 0xff00ff, // ground truth
  detections: 0xffa000, // discovered (drivekit discover)
  tracks: 0x00e5ff, // tracked and refined (drivekit discover)
  detector: 0xff3030, // detected (drivekit detect)
  dbscan: 0xffff00, // the clustering baseline
};
const OTHER = [0xffffff, 0x9d7cff, 0x7cffb0, 0xff9db0];

export function boxColour(name, k) {
  return BOX_COLOURS[name] ?? OTHER[k % OTHER.length];
}

/** Agents by type code (vehicle, pedestrian, cyclist, other); the ego in white. */
export const AGENT_COLOURS = [0x4da6ff, 0xffd24d, 0x5cff8a, 0xa0a0a0];
export const AGENT_TYPE_NAMES = ['vehicle', 'pedestrian', 'cyclist', 'other'];
/** Rollout agents that overlap another agent, and vehicles off the drivable area (Sim Agents tests). */
export const COLLISION_COLOUR = 0xff2020;
export const OFFROAD_COLOUR = 0xff70c0;
/** The ground grid: 10 m cells, dim enough to sit under everything else. */
export const GRID_COLOUR = 0x3a4250;
export const GRID_CELL_M = 10;
export const EGO_COLOUR = 0xffffff;
/** Logged agents beside a rollout's simulated ones. */
export const LOGGED_AGENT_COLOUR = 0x6e7681;

export const MAP_COLOURS = {
  lanes: 0x2f4f6f,
  road_edges: 0xa0a8b0,
  crosswalks: 0xd0d0a0,
  stop_lines: 0xff4040,
};
export const FORECAST_COLOUR = 0xff7a00;
export const BACKGROUND = 0x0d1117;
