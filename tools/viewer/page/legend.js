// The viewer's legend: every colour on the screen with what it means — the point colouring in use (a ramp
// with its range, or the ring hues), the grid's cell size, boxes, agents, rollout flags, map and forecast.
/* global document */
import {
  AGENT_COLOURS,
  AGENT_TYPE_NAMES,
  COLLISION_COLOUR,
  EGO_COLOUR,
  FORECAST_COLOUR,
  GRID_CELL_M,
  GRID_COLOUR,
  HEIGHT_RANGE_M,
  HEIGHT_STOPS,
  INTENSITY_STOPS,
  LOGGED_AGENT_COLOUR,
  MAP_COLOURS,
  OFFROAD_COLOUR,
  RING_PALETTE,
  boxColour,
} from './colours.js';

const hex = (c) => `#${c.toString(16).padStart(6, '0')}`;
const rgb = (c) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;

const SET_NAMES = {
  labels: 'ground truth',
  detections: 'discovered',
  tracks: 'tracked',
  detector: 'detected',
};
const MAP_NAMES = {
  lanes: 'lane centres',
  road_edges: 'road edges',
  crosswalks: 'crosswalks',
  stop_lines: 'stop lines',
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** One legend row: a swatch of `colour` (0xRRGGBB) and its meaning; `key` names it for tests. */
function row(parent, colour, text, key) {
  const r = el('div', 'row');
  r.dataset.key = key;
  const sw = el('span', 'swatch');
  sw.style.background = hex(colour);
  r.append(sw, el('span', '', text));
  parent.append(r);
}

function section(parent, title) {
  const s = el('div', 'section');
  s.append(el('div', 'title', title));
  parent.append(s);
  return s;
}

/** A ramp as a CSS gradient bar with its two end labels. */
function ramp(parent, stops, lo, hi, key) {
  const bar = el('div', 'ramp');
  bar.dataset.key = key;
  bar.style.background = `linear-gradient(to right, ${stops.map(rgb).join(', ')})`;
  const ends = el('div', 'ends');
  ends.append(el('span', '', lo), el('span', '', hi));
  parent.append(bar, ends);
}

/** Fill `root` with the legend of what `info` and the last frame's `scene` put on the screen. */
export function buildLegend(root, { info, scene, colourMode }) {
  root.textContent = '';
  if (!info) return;
  if (info.has_points) {
    const s = section(root, `points by ${colourMode}`);
    if (colourMode === 'intensity')
      ramp(
        s,
        INTENSITY_STOPS,
        '0',
        `99th percentile${info.intensity_scale ? ` (${info.intensity_scale})` : ''}`,
        'ramp:intensity',
      );
    else if (colourMode === 'ring') {
      const r = el('div', 'rings');
      r.dataset.key = 'ramp:ring';
      RING_PALETTE.forEach((c, k) => {
        const sw = el('span', 'swatch');
        sw.style.background = rgb(c);
        sw.title = `ring ${k} (+8n)`;
        r.append(sw);
      });
      s.append(r, el('div', 'note', 'ring 0–7, repeating'));
    } else
      ramp(s, HEIGHT_STOPS, `${HEIGHT_RANGE_M[0]} m`, `+${HEIGHT_RANGE_M[1]} m (vehicle z)`, 'ramp:height');
  }
  const ground = section(root, 'ground');
  row(ground, GRID_COLOUR, `grid: ${GRID_CELL_M} m cells`, 'grid');
  // The ego marker is drawn where no scenario ego is (a log without agents).
  if ((info.kind === 'log' || info.kind === 'live') && info.agent_sets.length === 0)
    row(ground, EGO_COLOUR, 'ego (chevron: ahead)', 'ego');
  if (info.box_sets.length) {
    const s = section(root, 'boxes');
    info.box_sets.forEach((name, k) => row(s, boxColour(name, k), SET_NAMES[name] ?? name, `boxes:${name}`));
  }
  const sets = info.agent_sets.filter((n) => n !== 'logged');
  if (sets.length) {
    const s = section(root, info.kind === 'rollout' ? 'simulated agents' : 'agents');
    AGENT_COLOURS.forEach((c, t) => row(s, c, AGENT_TYPE_NAMES[t], `agent:${AGENT_TYPE_NAMES[t]}`));
    row(s, EGO_COLOUR, 'ego vehicle', 'agent:ego');
    if (info.kind === 'rollout') {
      const flags = Object.values(scene?.flags ?? {}).flat();
      const n = (test) => flags.filter(test).length;
      row(s, COLLISION_COLOUR, `collision (${n((f) => f & 1)} now)`, 'flag:collision');
      row(s, OFFROAD_COLOUR, `off-road vehicle (${n((f) => (f & 3) === 2)} now)`, 'flag:offroad');
    }
  }
  if (info.agent_sets.includes('logged'))
    row(section(root, 'log'), LOGGED_AGENT_COLOUR, 'logged agents', 'agents:logged');
  if (info.has_map) {
    const s = section(root, 'map');
    for (const [k, c] of Object.entries(MAP_COLOURS)) row(s, c, MAP_NAMES[k] ?? k, `map:${k}`);
  }
  if (info.has_forecast) row(section(root, 'world model'), FORECAST_COLOUR, 'predicted sweep', 'forecast');
}
