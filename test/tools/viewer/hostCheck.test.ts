// The viewer's network-facing rules, against the real `drivekit view` process: only requests naming a
// loopback host (or the configured one) are answered (DNS rebinding), a non-loopback --host needs
// --allow-remote (exit 2), and a decoded '..' cannot leave the served folders.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../core/paths.ts';
import { saveScenario } from '../../../simulation/scenarioIo.ts';
import { straightRoadScenario } from '../../simulation/fixtures.ts';

const BIN = path.join(REPO_ROOT, 'bin/drivekit.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-view-host-'));
const scenario = path.join(tmp, 'road.json');
let child: ChildProcess;
let port = 0;

/** GET with an explicit Host header (fetch does not let a caller set it). */
function get(p: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: p, headers: { Host: host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  saveScenario(straightRoadScenario({ numAgents: 2, numSteps: 11 }), scenario);
  child = spawn(process.execPath, [BIN, 'view', scenario, '--port', '0', '--json'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        port = Number(new URL((JSON.parse(line) as { url: string }).url).port);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`view exited ${code}: ${err}`)));
  });
}, 60_000);

afterAll(() => {
  child?.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('drivekit view: Host header, remote binds, traversal', () => {
  it('answers loopback host names and refuses another name (421)', async () => {
    for (const h of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost'])
      expect((await get('/api/info', h)).status, h).toBe(200);
    for (const h of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`]) {
      const r = await get('/api/info', h);
      expect(r.status, h).toBe(421);
      expect(r.body).not.toMatch(/frame_count/);
    }
    // HTTP/1.0 without a Host header names no host at all: refused too.
    const raw = await new Promise<string>((resolve, reject) => {
      let text = '';
      const sock = net.connect(port, '127.0.0.1', () => sock.write('GET /api/info HTTP/1.0\r\n\r\n'));
      sock.on('data', (d) => (text += d));
      sock.on('end', () => resolve(text));
      sock.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.[01] 421/);
  });

  it('refuses a decoded traversal out of the three.js folders, and serves what is allowed', async () => {
    const h = `127.0.0.1:${port}`;
    for (const p of [
      '/three/build/..%2fpackage.json',
      '/three/build/%2e%2e/package.json',
      '/app/..%2f..%2fserver.ts',
    ]) {
      const r = await get(p, h);
      expect(r.status, p).toBeGreaterThanOrEqual(400);
      expect(r.body, p).not.toMatch(/"name"|"version"|import /);
    }
    expect((await get('/three/build/three.module.js', h)).status).toBe(200);
  });

  it('--host 0.0.0.0 needs --allow-remote (exit 2, as the stages)', () => {
    const r = spawnSync(process.execPath, [BIN, 'view', scenario, '--port', '0', '--host', '0.0.0.0'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--host.*0\.0\.0\.0.*--allow-remote/);
  });
});
