// The three.js scene of the viewer: the sweep and its boxes under the ego's pose, the map and agents in the
// world frame, a forecast under its start frame's pose; chase, top-down and free (orbit) cameras. z is up.
/* global window */
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import {
  AGENT_COLOURS,
  BACKGROUND,
  COLLISION_COLOUR,
  EGO_COLOUR,
  GRID_CELL_M,
  GRID_COLOUR,
  OFFROAD_COLOUR,
  FORECAST_COLOUR,
  LOGGED_AGENT_COLOUR,
  MAP_COLOURS,
  boxColour,
  pointColours,
} from './colours.js';

const BOX_STRIDE = 8;
const AGENT_STRIDE = 9;
// The 12 edges of a unit box as pairs of corner indices (corners: bit 0 x, bit 1 y, bit 2 z).
const EDGES = [0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 4, 6, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7];

/**
 * Line-segment vertices of oriented boxes given as flat rows (centre, size, yaw at offsets 0–6); `grow`
 * metres are added to each side (agents drawn just outside ground-truth boxes that coincide with them).
 */
function boxVertices(rows, stride, keep, grow = 0) {
  const count = rows.length / stride;
  const out = new Float32Array(count * EDGES.length * 3);
  let o = 0;
  for (let b = 0; b < count; b++) {
    const r = b * stride;
    if (keep && !keep(r)) continue;
    const [cx, cy, cz, l, w, h, yaw] = [
      rows[r],
      rows[r + 1],
      rows[r + 2],
      rows[r + 3] + 2 * grow,
      rows[r + 4] + 2 * grow,
      rows[r + 5] + 2 * grow,
      rows[r + 6],
    ];
    const c = Math.cos(yaw);
    const s = Math.sin(yaw);
    for (const k of EDGES) {
      const dx = (k & 1 ? 0.5 : -0.5) * l;
      const dy = (k & 2 ? 0.5 : -0.5) * w;
      out[o++] = cx + c * dx - s * dy;
      out[o++] = cy + s * dx + c * dy;
      out[o++] = cz + (k & 4 ? 0.5 : -0.5) * h;
    }
  }
  return out.subarray(0, o);
}

/**
 * One material per colour for the page's life: disposing a material releases its shader program, and
 * compiling it again costs hundreds of ms under a software rasteriser (SwiftShader) — every frame.
 */
const LINE_MATERIALS = new Map();

function lines(vertices, colour) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(vertices, 3));
  let m = LINE_MATERIALS.get(colour);
  if (!m) LINE_MATERIALS.set(colour, (m = new THREE.LineBasicMaterial({ color: colour })));
  return new THREE.LineSegments(g, m);
}

/** Polylines [x0, y0, x1, y1, …] as segment pairs at height z. */
function polylineVertices(polylines, z) {
  let n = 0;
  for (const p of polylines) n += Math.max(0, p.length / 2 - 1);
  const out = new Float32Array(n * 6);
  let o = 0;
  for (const p of polylines)
    for (let i = 0; i + 3 < p.length; i += 2) {
      out.set([p[i], p[i + 1], z, p[i + 2], p[i + 3], z], o);
      o += 6;
    }
  return out;
}

function poseMatrix(pose) {
  // three's Matrix4.set takes row-major arguments, as drivekit stores poses.
  return new THREE.Matrix4().set(...pose);
}

/** Free a layer's GPU buffers (materials are shared and kept, see LINE_MATERIALS). */
function dispose(obj) {
  obj.traverse((o) => o.geometry?.dispose());
  obj.removeFromParent();
}

export class ViewerScene {
  constructor(canvas) {
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: false });
    this.renderer.setPixelRatio(1);
    this.renderer.setClearColor(BACKGROUND);
    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(60, 1, 0.1, 3000);
    this.camera.up.set(0, 0, 1);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.addEventListener('change', () => this.render());
    // Ego frame (points, boxes), world frame (map, agents), forecast frame (the start frame's pose).
    this.ego = new THREE.Group();
    this.world = new THREE.Group();
    this.forecastFrame = new THREE.Group();
    for (const g of [this.ego, this.forecastFrame]) g.matrixAutoUpdate = false;
    this.scene.add(this.ego, this.world, this.forecastFrame);
    this.layers = {};
    this.visible = {};
    this.cameraMode = 'follow';
    this.egoPosition = null;
    this.colourBuffer = null;
    this.pointMaterial = new THREE.PointsMaterial({ size: 2, sizeAttenuation: false, vertexColors: true });
    this.forecastMaterial = new THREE.PointsMaterial({
      size: 2,
      sizeAttenuation: false,
      color: FORECAST_COLOUR,
    });
    this.resize();
    window.addEventListener('resize', () => this.resize());
  }

  resize() {
    const c = this.renderer.domElement;
    const w = c.clientWidth || window.innerWidth;
    const h = c.clientHeight || window.innerHeight;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  render() {
    this.renderer.render(this.scene, this.camera);
  }

  /** Replace a named layer's object (disposing the old one) and apply its visibility. */
  setLayer(name, obj, parent) {
    if (this.layers[name]) dispose(this.layers[name]);
    delete this.layers[name];
    if (!obj) return;
    obj.visible = this.visible[name] !== false;
    this.layers[name] = obj;
    parent.add(obj);
  }

  setVisible(name, on) {
    this.visible[name] = on;
    if (this.layers[name]) this.layers[name].visible = on;
    this.render();
  }

  setMap(map) {
    const group = new THREE.Group();
    for (const [kind, colour] of Object.entries(MAP_COLOURS))
      if (map[kind]?.length)
        group.add(lines(polylineVertices(map[kind], (map.ground_z ?? 0) + 0.02), colour));
    this.setLayer('map', group, this.world);
  }

  /** The sweep's points (decoded wire frame), coloured by `mode`. */
  setPoints(frame, mode) {
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(frame.xyz, 3));
    // A fresh colour array per frame: three uploads an attribute's array once, when first drawn.
    g.setAttribute('color', new THREE.BufferAttribute(pointColours(frame, mode), 3, true));
    this.lastFrame = frame;
    this.setLayer('points', new THREE.Points(g, this.pointMaterial), this.ego);
  }

  recolour(mode) {
    const pts = this.layers.points;
    if (!pts || !this.lastFrame) return;
    pts.geometry.setAttribute(
      'color',
      new THREE.BufferAttribute(pointColours(this.lastFrame, mode), 3, true),
    );
    this.render();
  }

  setBoxes(sets) {
    Object.keys(sets).forEach((name, k) => {
      const obj = lines(boxVertices(sets[name], BOX_STRIDE), boxColour(name, k));
      // Drawn after the agents: where a box and an agent share an edge, the box's colour shows.
      obj.renderOrder = 2;
      this.setLayer(`boxes:${name}`, obj, this.ego);
    });
  }

  /**
   * Agents by type (the ego white); with `flags` (a rollout: AGENT_FLAG bits per row) colliding agents in
   * red and off-road vehicles in pink, each with a second outline 0.4 m out so they catch the eye.
   * `growM`: every box drawn this much larger a side (a log's agents, beside its ground truth).
   */
  setAgents(sets, egoId, flags = {}, growM = 0) {
    for (const [name, rows] of Object.entries(sets)) {
      const group = new THREE.Group();
      const f = flags[name];
      const flagOf = (r) => (f ? f[r / AGENT_STRIDE] : 0);
      if (name === 'logged')
        group.add(lines(boxVertices(rows, AGENT_STRIDE, null, growM), LOGGED_AGENT_COLOUR));
      else {
        AGENT_COLOURS.forEach((colour, type) => {
          const v = boxVertices(
            rows,
            AGENT_STRIDE,
            (r) => rows[r + 8] === type && rows[r + 7] !== egoId && !flagOf(r),
            growM,
          );
          if (v.length) group.add(lines(v, colour));
        });
        const ego = boxVertices(rows, AGENT_STRIDE, (r) => rows[r + 7] === egoId && !flagOf(r), growM);
        if (ego.length) group.add(lines(ego, EGO_COLOUR));
        for (const [bit, colour] of [
          [1, COLLISION_COLOUR],
          [2, OFFROAD_COLOUR],
        ]) {
          // A collision outranks off-road: each flagged agent is drawn in one colour.
          const keep = (r) => (bit === 1 ? flagOf(r) & 1 : (flagOf(r) & 3) === 2);
          for (const grow of [growM, growM + 0.4]) {
            const v = boxVertices(rows, AGENT_STRIDE, keep, grow);
            if (v.length) group.add(lines(v, colour));
          }
        }
      }
      this.setLayer(`agents:${name}`, group, this.world);
    }
  }

  /** The ground grid (GRID_CELL_M cells, 200 m across) at world height `z`, snapped around `centre`. */
  setGrid(centre, z) {
    let grid = this.layers.grid;
    if (!grid) {
      // One segment a cell side: lines 200 m long that pass behind the chase camera were dropped whole
      // by the rasteriser (SwiftShader), so the lines along the heading vanished.
      const half = 100;
      const v = [];
      for (let k = -half; k <= half; k += GRID_CELL_M)
        for (let t = -half; t < half; t += GRID_CELL_M)
          v.push(t, k, 0, t + GRID_CELL_M, k, 0, k, t, 0, k, t + GRID_CELL_M, 0);
      grid = lines(new Float32Array(v), GRID_COLOUR);
      this.setLayer('grid', grid, this.world);
    }
    grid.position.set(
      Math.round(centre.x / GRID_CELL_M) * GRID_CELL_M,
      Math.round(centre.y / GRID_CELL_M) * GRID_CELL_M,
      z,
    );
  }

  /**
   * The ego on a log without a scenario ego: a car outline (4.5 × 1.9 × 1.5 m) on the ground under the
   * sensor, `groundZ` metres below it, with a chevron pointing forward.
   */
  setEgoMarker(groundZ) {
    if (groundZ === null) return this.setLayer('ego', null);
    const box = boxVertices([0, 0, groundZ + 0.75, 4.5, 1.9, 1.5, 0, -1], BOX_STRIDE);
    const z = groundZ + 0.05;
    const chevron = new Float32Array([2.6, 1.2, z, 4.6, 0, z, 4.6, 0, z, 2.6, -1.2, z]);
    const v = new Float32Array(box.length + chevron.length);
    v.set(box);
    v.set(chevron, box.length);
    const obj = lines(v, EGO_COLOUR);
    obj.renderOrder = 3;
    this.setLayer('ego', obj, this.ego);
  }

  setForecast(frame) {
    if (!frame) return this.setLayer('forecast', null);
    this.forecastFrame.matrix.copy(poseMatrix(frame.pose));
    this.forecastFrame.matrixWorldNeedsUpdate = true;
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(frame.xyz, 3));
    this.setLayer('forecast', new THREE.Points(g, this.forecastMaterial), this.forecastFrame);
  }

  /** Place the ego frame; the following cameras move with the ego, keeping the user's orbit offset. */
  setEgoPose(pose) {
    const m = poseMatrix(pose);
    this.ego.matrix.copy(m);
    this.ego.matrixWorldNeedsUpdate = true;
    const p = new THREE.Vector3().setFromMatrixPosition(m);
    const yaw = Math.atan2(pose[4], pose[0]);
    if (this.egoPosition === null) this.placeCamera(p, yaw);
    else if (this.cameraMode !== 'free') {
      const d = p.clone().sub(this.egoPosition);
      this.camera.position.add(d);
      this.controls.target.add(d);
      this.controls.update();
    }
    this.egoPosition = p;
    this.egoYaw = yaw;
  }

  /** Chase view behind and above the ego, or straight above it (top-down). */
  placeCamera(p, yaw) {
    const c = Math.cos(yaw);
    const s = Math.sin(yaw);
    if (this.cameraMode === 'top') {
      this.camera.position.set(p.x - 0.5 * c, p.y - 0.5 * s, p.z + 90);
      this.controls.target.copy(p);
    } else {
      this.camera.position.set(p.x - 28 * c, p.y - 28 * s, p.z + 18);
      this.controls.target.set(p.x + 12 * c, p.y + 12 * s, p.z);
    }
    this.controls.update();
  }

  setCameraMode(mode) {
    this.cameraMode = mode;
    if (mode !== 'free' && this.egoPosition) this.placeCamera(this.egoPosition, this.egoYaw);
    this.render();
  }
}
