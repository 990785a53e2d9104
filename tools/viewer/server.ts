// The viewer's HTTP server (node:http, loopback by default): the page and three.js straight from
// node_modules (nothing from the network), and per-frame data routes so a log is streamed, never loaded whole.
// Only requests naming this server in their Host header are answered (DNS-rebinding defence, RFC 7230 §5.4).
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../../core/errors.ts';
import { fileURLToPath } from 'node:url';
import { type ViewerSource, viewChoice } from './viewerSource.ts';

const PAGE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'page');

/** three's package root, found the way Node resolves it (works wherever node_modules is). */
function threeRoot(): string {
  const entry = createRequire(import.meta.url).resolve('three');
  return path.resolve(path.dirname(entry), '..');
}

/** Only these folders of the three package are served (the ES module build and the examples' addons). */
const THREE_SERVED = ['build/', 'examples/jsm/'];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};

export interface ViewerServerOptions {
  /** HTTP port; 0 picks a free one. */
  port: number;
  /** Address to listen on. */
  host: string;
  /** Allow listening on a non-loopback address (the viewer has no authentication: anyone who reaches it reads the logs). */
  allowRemote: boolean;
}

export const DEFAULT_VIEWER_SERVER: ViewerServerOptions = {
  port: 8080,
  // Loopback: the viewer serves logs without authentication, so only this machine reaches it by default.
  host: '127.0.0.1',
  allowRemote: false,
};

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

/** A host name or address that only reaches this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    h === '::ffff:127.0.0.1' ||
    /^127(\.\d{1,3}){3}$/.test(h)
  );
}

/**
 * The host names a request may name in its Host header: loopback names, the configured host, and —
 * when listening on every interface with allowRemote — this machine's name and interface addresses.
 * A page of another origin that reaches the port through DNS rebinding names its own domain, and is
 * refused.
 */
export function allowedHostNames(host: string, allowRemote: boolean): (name: string) => boolean {
  const names = new Set<string>();
  const add = (n: string) => names.add(n.toLowerCase().replace(/^\[(.*)\]$/, '$1'));
  if (!WILDCARD_HOSTS.has(host)) add(host);
  if (allowRemote && WILDCARD_HOSTS.has(host)) {
    add(os.hostname());
    for (const list of Object.values(os.networkInterfaces()))
      for (const a of list ?? []) add(a.address.replace(/%.*$/, ''));
  }
  return (name) => isLoopbackHost(name) || names.has(name.toLowerCase().replace(/^\[(.*)\]$/, '$1'));
}

/** The host name of a Host header without its port; null when malformed. */
function hostOfHeader(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^(\[[0-9a-fA-F:.%a-zA-Z]+\]|[^:[\]\s/@]+)(?::\d{1,5})?$/.exec(header.trim());
  return m ? m[1] : null;
}

export interface ViewerServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

const json = (res: http.ServerResponse, v: unknown) => send(res, 200, 'application/json', JSON.stringify(v));
const refuse = (res: http.ServerResponse, status: number, why: string) =>
  send(res, status, 'text/plain', `${why}\n`);
const notFound = (res: http.ServerResponse, what: string) => send(res, 404, 'text/plain', `${what}\n`);

/** A static file under `root`, refusing any path that leaves it. */
function sendFile(res: http.ServerResponse, root: string, rel: string, cache: Map<string, Buffer>): void {
  const file = path.resolve(root, rel);
  if (!file.startsWith(root + path.sep)) return notFound(res, 'no such file');
  let body = cache.get(file);
  if (!body) {
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) return notFound(res, 'no such file');
    body = fs.readFileSync(file);
    cache.set(file, body);
  }
  send(res, 200, TYPES[path.extname(file)] ?? 'application/octet-stream', body);
}

/** Server-sent events of a live source: one `data:` JSON line per event, a comment every 15 s keeps it open. */
function streamEvents(req: http.IncomingMessage, res: http.ServerResponse, source: ViewerSource): void {
  if (!source.subscribe) return notFound(res, 'not a live source');
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
  });
  res.write(`data: ${JSON.stringify({ type: 'hello', info: source.info() })}\n\n`);
  const off = source.subscribe((e) => res.write(`data: ${JSON.stringify(e)}\n\n`));
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  req.on('close', () => {
    clearInterval(keepAlive);
    off();
  });
}

const FRAME_ROUTE = /^\/frames\/(\d+)(\.arrow|\/scene|\/forecast)?$/;

async function route(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  source: ViewerSource,
  three: string,
  cache: Map<string, Buffer>,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://viewer');
  let p: string;
  try {
    p = decodeURIComponent(url.pathname);
  } catch {
    return refuse(res, 400, 'malformed path');
  }
  // A decoded '..' segment (sent as %2e%2e or ..%2f) or a backslash never names a served file.
  if (p.split('/').includes('..') || /[\\\0]/.test(p))
    return refuse(res, 400, 'path leaves the served folders');
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only\n');
  if (p === '/' || p === '/index.html') return sendFile(res, PAGE_DIR, 'index.html', cache);
  if (p.startsWith('/app/')) return sendFile(res, PAGE_DIR, p.slice('/app/'.length), cache);
  if (p.startsWith('/three/')) {
    const rel = path.posix.normalize(p.slice('/three/'.length));
    if (!THREE_SERVED.some((d) => rel.startsWith(d))) return notFound(res, 'not served');
    return sendFile(res, three, rel, cache);
  }
  // A sim folder's scenario and rollout travel in the query, so each page (and its address) keeps its own.
  const view = viewChoice(url.searchParams);
  if (p === '/api/info') return json(res, source.info(view));
  if (p === '/api/map') {
    const m = source.map(view);
    return m ? json(res, m) : notFound(res, 'no map');
  }
  if (p === '/api/events') return streamEvents(req, res, source);
  const m = FRAME_ROUTE.exec(p);
  if (m) {
    const i = Number(m[1]);
    if (m[2] === '/scene') {
      const s = await source.scene(i, view);
      return s ? json(res, s) : notFound(res, `no frame ${i}`);
    }
    const bytes =
      m[2] === '.arrow'
        ? await source.frameArrow(i)
        : m[2] === '/forecast'
          ? await source.forecastPoints(i)
          : await source.framePoints(i);
    if (!bytes) return notFound(res, `no ${m[2] === '/forecast' ? 'forecast for ' : ''}frame ${i}`);
    return send(
      res,
      200,
      m[2] === '.arrow' ? 'application/vnd.apache.arrow.stream' : 'application/octet-stream',
      bytes,
    );
  }
  notFound(res, 'no such route');
}

/** Serve `source` until closed; resolves once listening (port 0: a free one, see `.port`). */
export async function startViewerServer(
  source: ViewerSource,
  o: Partial<ViewerServerOptions> = {},
): Promise<ViewerServer> {
  const { port, host, allowRemote } = { ...DEFAULT_VIEWER_SERVER, ...o };
  if (!isLoopbackHost(host) && !allowRemote)
    throw new InputError(
      '--host',
      `'${host}' is not a loopback address; the viewer serves logs without authentication (pass --allow-remote to listen on it anyway)`,
    );
  const hostAllowed = allowedHostNames(host, allowRemote);
  const three = threeRoot();
  const cache = new Map<string, Buffer>();
  const server = http.createServer((req, res) => {
    const named = hostOfHeader(req.headers.host);
    if (named === null || !hostAllowed(named)) {
      // 421 Misdirected Request: this server does not answer for that name (e.g. a DNS-rebound page).
      return refuse(res, 421, `host '${req.headers.host ?? ''}' is not served here`);
    }
    route(req, res, source, three, cache).catch((e: unknown) => {
      // A frame that fails to read (a damaged log) is the page's to show; the server keeps serving.
      if (!res.headersSent) send(res, 500, 'text/plain', `${(e as Error).message.split('\n')[0]}\n`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${bound}/`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
