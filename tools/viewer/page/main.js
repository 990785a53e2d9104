// The viewer page: loads the source's info, builds the layer toggles, and shows one frame at a time
// (points, boxes, agents, forecast fetched per frame); play / pause / scrub / step, live updates over SSE.
/* global window, document, fetch, performance, setTimeout, EventSource, URLSearchParams */
import { ViewerScene } from './scene.js';
import { decodeFrame } from './wire.js';
import { BOX_COLOURS, boxColour } from './colours.js';

const $ = (id) => document.getElementById(id);
const view = new ViewerScene($('view'));
const params = new URLSearchParams(window.location.search);

let info = null;
let current = -1;
let wanted = -1;
let playing = false;
let colourMode = params.get('colour') ?? 'height';
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
  if (info.has_points) toggle('points', 'points', null);
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

/** Fetch and draw frame i. */
async function draw(i) {
  const [scene, points] = await Promise.all([
    getJson(`/frames/${i}/scene`),
    info.has_points ? getFrame(`/frames/${i}`) : Promise.resolve(null),
  ]);
  const forecast = scene.forecast ? await getFrame(`/frames/${i}/forecast`) : null;
  if (points) view.setPoints(points, colourMode);
  view.setEgoPose(scene.pose);
  view.setBoxes(scene.boxes);
  view.setAgents(scene.agents, scene.ego_agent_id);
  if (info.has_forecast) view.setForecast(forecast);
  view.render();
  current = i;
  $('scrub').value = String(i);
  $('frameLabel').textContent = `frame ${i} / ${info.frame_count - 1}`;
  const counts = Object.entries(scene.boxes).map(([k, v]) => `${SET_NAMES[k] ?? k} ${v.length / 8}`);
  const fc = scene.forecast ? `, forecast from frame ${scene.forecast.start_frame}` : '';
  status(
    `${info.name}: ${points ? points.count : 0} points${counts.length ? ', ' + counts.join(', ') : ''}${fc}`,
  );
  window.viewerState = {
    frame: i,
    points: points ? points.count : 0,
    boxes: scene.boxes,
    agents: scene.agents,
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

async function main() {
  info = await getJson('/api/info');
  document.title = `drivekit view — ${info.name}`;
  $('colour').value = colourMode;
  buildLayers();
  setRange();
  if (info.has_map) view.setMap(await getJson('/api/map'));
  $('play').addEventListener('click', () => play());
  $('prev').addEventListener('click', () => (pause(), step(-1)));
  $('next').addEventListener('click', () => (pause(), step(1)));
  $('scrub').addEventListener('input', () => show(Number($('scrub').value)));
  $('colour').addEventListener('change', () => {
    colourMode = $('colour').value;
    view.recolour(colourMode);
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
  window.viewer = { show, step, info, benchStream, boxColours: BOX_COLOURS, scene: view };
  if (info.live) listenLive();
  if (info.frame_count > 0) await show(Number(params.get('frame') ?? info.first_frame));
  else status(`${info.name}: waiting for frames`);
  document.body.dataset.ready = '1';
}

main().catch((e) => status(`error: ${e.message ?? e}`));
