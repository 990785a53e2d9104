// The viewer page: loads the source's info, builds the layer toggles, and shows one frame at a time
// (points, boxes, agents, forecast fetched per frame); play / pause / scrub / step, live updates over SSE.
/* global window, document, fetch, performance, setTimeout, EventSource, URLSearchParams, URL, Option */
import { ViewerScene } from './scene.js';
import { decodeFrame } from './wire.js';
import { BOX_COLOURS, boxColour } from './colours.js';
import { buildLegend } from './legend.js';

const $ = (id) => document.getElementById(id);
const view = new ViewerScene($('view'));
const params = new URLSearchParams(window.location.search);

let info = null;
let current = -1;
let wanted = -1;
let playing = false;
let colourMode = params.get('colour') ?? 'height';
/** A sim folder's scenario and rollout, as the query of every data request (the server is stateless). */
const choice = { scenario: params.get('scenario'), rollout: params.get('rollout') };
/** The last frame's scene, for the legend (which sets and flags it has). */
let lastScene = null;

function query() {
  const q = new URLSearchParams();
  if (choice.scenario) q.set('scenario', choice.scenario);
  if (choice.rollout !== null && choice.rollout !== undefined) q.set('rollout', String(choice.rollout));
  const s = q.toString();
  return s ? `?${s}` : '';
}
/** The running draw loop, while one is running. */
let loading = null;

async function getJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status} ${(await r.text()).trim()}`);
  return r.json();
}

async function getFrame(url) {
  const r = await fetch(url);
  if (r.status === 404) return null;
  if (!r.ok) throw new Error(`${url}: ${r.status} ${(await r.text()).trim()}`);
  return decodeFrame(await r.arrayBuffer());
}

function status(text) {
  $('status').textContent = text;
}

function toggle(name, label, colour, on = true) {
  const l = document.createElement('label');
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.checked = on;
  box.dataset.layer = name;
  box.addEventListener('change', () => view.setVisible(name, box.checked));
  l.append(box);
  if (colour !== null) {
    const sw = document.createElement('span');
    sw.className = 'swatch';
    sw.style.background = `#${colour.toString(16).padStart(6, '0')}`;
    l.append(sw);
  }
  l.append(label);
  $('layers').append(l);
  view.visible[name] = on;
}

const SET_NAMES = {
  labels: 'ground truth',
  detections: 'discovered',
  tracks: 'tracked',
  detector: 'detected',
};

function buildLayers() {
  $('layers').textContent = '';
  toggle('grid', 'grid', null);
  if (info.has_points) toggle('points', 'points', null);
  // The ego marker, where no scenario ego is drawn (a log without agents).
  if ((info.kind === 'log' || info.kind === 'live') && info.agent_sets.length === 0)
    toggle('ego', 'ego', null);
  info.box_sets.forEach((s, k) => toggle(`boxes:${s}`, SET_NAMES[s] ?? s, boxColour(s, k)));
  for (const s of info.agent_sets) toggle(`agents:${s}`, `agents (${s})`, null, s !== 'logged');
  if (info.has_map) toggle('map', 'map', null);
  if (info.has_forecast) toggle('forecast', 'predicted sweep', 0xff7a00);
}

function setRange() {
  const s = $('scrub');
  s.min = String(info.first_frame);
  s.max = String(Math.max(info.first_frame, info.frame_count - 1));
}

/**
 * Height of the ground below the sensor in the vehicle frame: the 10th percentile of the points' z within
 * 20 m (most returns there are road), or null without points.
 */
function groundBelow(points) {
  if (!points || points.count === 0) return null;
  const zs = [];
  const step = Math.max(1, Math.floor(points.count / 5000));
  for (let i = 0; i < points.count; i += step) {
    const x = points.xyz[3 * i];
    const y = points.xyz[3 * i + 1];
    if (x * x + y * y < 400) zs.push(points.xyz[3 * i + 2]);
  }
  if (zs.length === 0) return null;
  zs.sort((a, b) => a - b);
  return zs[Math.floor(0.1 * (zs.length - 1))];
}

/** Fetch and draw frame i. */
async function draw(i) {
  const [scene, points] = await Promise.all([
    getJson(`/frames/${i}/scene${query()}`),
    info.has_points ? getFrame(`/frames/${i}`) : Promise.resolve(null),
  ]);
  const forecast = scene.forecast ? await getFrame(`/frames/${i}/forecast`) : null;
  if (points) view.setPoints(points, colourMode);
  view.setEgoPose(scene.pose);
  view.setBoxes(scene.boxes);
  // A log's agents (a synthetic log's scenario) coincide with its ground truth: drawn 10 cm outside it.
  view.setAgents(scene.agents, scene.ego_agent_id, scene.flags ?? {}, info.kind === 'log' ? 0.1 : 0);
  const ground = groundBelow(points);
  // The ego marker where no scenario ego is drawn (a real log has no agents).
  const egoShown = scene.ego_agent_id !== null && Object.keys(scene.agents).length > 0;
  if (info.kind === 'log' || info.kind === 'live') view.setEgoMarker(egoShown ? null : (ground ?? -1.7));
  const egoZ = scene.pose[11];
  view.setGrid(view.egoPosition, mapGround ?? egoZ + (ground ?? -1.7));
  if (info.has_forecast) view.setForecast(forecast);
  view.render();
  lastScene = scene;
  updateLegend();
  current = i;
  $('scrub').value = String(i);
  $('frameLabel').textContent = `frame ${i} / ${info.frame_count - 1}`;
  const counts = Object.entries(scene.boxes).map(([k, v]) => `${SET_NAMES[k] ?? k} ${v.length / 8}`);
  const fc = scene.forecast ? `, forecast from frame ${scene.forecast.start_frame}` : '';
  const flagged = Object.values(scene.flags ?? {}).flat();
  const hits = flagged.length
    ? `, ${flagged.filter((f) => f & 1).length} colliding, ${flagged.filter((f) => (f & 3) === 2).length} off-road`
    : '';
  const what = info.has_points
    ? `${points ? points.count : 0} points`
    : `${(scene.agents.rollout ?? scene.agents.scenario ?? []).length / 9} agents`;
  status(`${info.name}: ${what}${counts.length ? ', ' + counts.join(', ') : ''}${hits}${fc}`);
  window.viewerState = {
    frame: i,
    points: points ? points.count : 0,
    boxes: scene.boxes,
    agents: scene.agents,
    flags: scene.flags ?? {},
  };
  document.body.dataset.frame = String(i);
}

/**
 * Show frame i (`force`: redraw even when it is the one shown). One frame loads at a time; requests made
 * meanwhile only move the target, so scrubbing fast draws the latest position, not every one passed.
 */
async function show(i, force = false) {
  wanted = i;
  if (force && current === i) current = -1;
  if (wanted === current) return;
  if (!loading)
    loading = (async () => {
      try {
        while (wanted !== current) await draw(wanted);
      } catch (e) {
        status(String(e.message ?? e));
      } finally {
        loading = null;
      }
    })();
  await loading;
}

function step(d) {
  const lo = info.first_frame;
  const hi = info.frame_count - 1;
  return show(Math.min(hi, Math.max(lo, (current < 0 ? lo : current) + d)));
}

async function play() {
  playing = !playing;
  $('play').textContent = playing ? '⏸' : '▶';
  const periodMs = 1000 / (info.rate_hz || 10);
  while (playing) {
    const t0 = performance.now();
    if (current >= info.frame_count - 1) {
      if (info.live) {
        await new Promise((r) => setTimeout(r, periodMs));
        continue;
      }
      await show(info.first_frame);
    } else await step(1);
    await new Promise((r) => setTimeout(r, Math.max(0, periodMs - (performance.now() - t0))));
  }
}

function pause() {
  if (playing) play();
}

/**
 * Fetch and draw frames back to back for `durationMs` (the viewer_stream benchmark): each one fetched,
 * decoded, coloured, uploaded and drawn, with one pixel read back so the GPU has really finished it.
 */
async function benchStream(durationMs) {
  const gl = view.renderer.getContext();
  const pixel = new Uint8Array(4);
  const t0 = performance.now();
  let frames = 0;
  let bytes = 0;
  let points = 0;
  let fetchMs = 0;
  for (let i = 0; performance.now() - t0 < durationMs; i = (i + 1) % info.frame_count) {
    const t1 = performance.now();
    const r = await fetch(`/frames/${i}`);
    const buf = await r.arrayBuffer();
    fetchMs += performance.now() - t1;
    const f = decodeFrame(buf);
    view.setPoints(f, colourMode);
    view.setEgoPose(f.pose);
    view.render();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    frames++;
    bytes += buf.byteLength;
    points += f.count;
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    frames,
    seconds,
    fps: frames / seconds,
    bytes_per_frame: bytes / frames,
    points_per_frame: points / frames,
    fetch_ms: fetchMs / frames,
    draw_ms: (1000 * seconds - fetchMs) / frames,
  };
}

function listenLive() {
  const es = new EventSource('/api/events');
  es.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.type === 'frame') {
      const atEnd = current >= info.frame_count - 1;
      info.frame_count = Math.max(info.frame_count, e.frame_index + 1);
      info.first_frame = Math.max(info.first_frame, info.frame_count - 200);
      setRange();
      // Follow the stream while the user is at its newest frame; a user scrubbing back is left alone.
      if (atEnd || current < 0) show(e.frame_index);
    } else if (e.type === 'boxes') {
      if (!info.box_sets.includes(e.set)) {
        info.box_sets.push(e.set);
        buildLayers();
      }
      if (e.frame_index === current) show(current, true);
    } else if (e.type === 'end') status(`${info.name}: ${e.reason}`);
  };
}

/** The map's ground height (rollouts, scenarios), where the grid lies; null on a log. */
let mapGround = null;

function updateLegend() {
  buildLegend($('legend'), { info, scene: lastScene, colourMode, visible: view.visible });
}

/** Load the source's info and map for the current choice (again after the picker changes it). */
async function load() {
  info = await getJson(`/api/info${query()}`);
  document.title = `drivekit view — ${info.name}`;
  buildLayers();
  buildPicker();
  setRange();
  if (info.has_map) {
    const map = await getJson(`/api/map${query()}`);
    mapGround = map.ground_z;
    view.setMap(map);
  }
  if (window.viewer) window.viewer.info = info;
}

/** A sim folder: a scenario picker and a rollout picker, which reload the page's data in place. */
function buildPicker() {
  const c = info.rollout_choice;
  $('picker').hidden = !c;
  if (!c) return;
  const sc = $('scenarioPick');
  sc.textContent = '';
  for (const s of c.scenarios)
    sc.append(new Option(`${s.id} (${s.rollouts})`, s.id, false, s.id === c.scenario));
  const ro = $('rolloutPick');
  ro.textContent = '';
  const n = c.scenarios.find((s) => s.id === c.scenario)?.rollouts ?? 1;
  for (let r = 0; r < n; r++) ro.append(new Option(`rollout ${r}`, String(r), false, r === c.rollout));
}

/** Picks run one after another: a later one never sees an earlier one's info land after its own. */
let picking = Promise.resolve();

function pick(scenario, rollout) {
  picking = picking.then(() => applyPick(scenario, rollout)).catch((e) => status(String(e.message ?? e)));
  return picking;
}

async function applyPick(scenario, rollout) {
  pause();
  choice.scenario = scenario;
  choice.rollout = rollout;
  const url = new URL(window.location.href);
  url.searchParams.set('scenario', scenario);
  url.searchParams.set('rollout', String(rollout));
  window.history.replaceState(null, '', url);
  await load();
  await show(Math.min(current < 0 ? 0 : current, info.frame_count - 1), true);
}

async function main() {
  $('colour').value = colourMode;
  await load();
  $('scenarioPick').addEventListener('change', () => pick($('scenarioPick').value, 0));
  $('rolloutPick').addEventListener('change', () =>
    pick($('scenarioPick').value, Number($('rolloutPick').value)),
  );
  $('layers').addEventListener('change', () => updateLegend());
  $('play').addEventListener('click', () => play());
  $('prev').addEventListener('click', () => (pause(), step(-1)));
  $('next').addEventListener('click', () => (pause(), step(1)));
  $('scrub').addEventListener('input', () => show(Number($('scrub').value)));
  $('colour').addEventListener('change', () => {
    colourMode = $('colour').value;
    view.recolour(colourMode);
    updateLegend();
  });
  $('camera').addEventListener('change', () => view.setCameraMode($('camera').value));
  window.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' && e.target.type !== 'checkbox' && e.target.type !== 'range') return;
    if (e.key === ' ') {
      e.preventDefault();
      play();
    } else if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      pause();
      step(e.key === 'ArrowRight' ? 1 : -1);
    }
  });
  window.viewer = { show, step, info, benchStream, boxColours: BOX_COLOURS, scene: view, pick };
  if (info.live) listenLive();
  if (info.frame_count > 0) await show(Number(params.get('frame') ?? info.first_frame));
  else status(`${info.name}: waiting for frames`);
  document.body.dataset.ready = '1';
}

main().catch((e) => status(`error: ${e.message ?? e}`));
