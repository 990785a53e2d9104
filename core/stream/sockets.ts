// Opening ZeroMQ sockets for stream endpoints: socket type, high-water marks, bounded linger, CURVE
// roles and the loopback bind policy in one place, so every stage gets the same behaviour.
import { Publisher, Pull, Push, Subscriber, XPublisher, type Socket } from 'zeromq';
import type { CurveConfig } from './curve.ts';
import { generateKeyPair } from './curve.ts';
import { checkBindPolicy, type Endpoint } from './endpoint.ts';
import { type PeerWatch, watchPeers } from './peerWatch.ts';
import { BOS_TOPIC, EOS_TOPIC } from './message.ts';

/**
 * The largest sane SensorFrame: 4 Mi points (16× a 128-beam, 2048-column sweep of 262k points; Waymo's five
 * LiDARs give ~180k, nuScenes 34k) of 26 bytes (frame_index, x, y, z, intensity, t_offset: 4 each; ring: 2).
 */
export const MAX_SENSOR_FRAME_POINTS = 1 << 22;
export const SENSOR_FRAME_POINT_BYTES = 26;
/**
 * The most bytes one received message frame may have: the largest sane SensorFrame plus 1 MiB of schema,
 * metadata and padding (110,100,480 bytes, 105 MiB). Every other record a stage exchanges (Boxes, Tokens,
 * agent observations) is far smaller. ZeroMQ disconnects a peer that sends more, before buffering it.
 */
export const MAX_MESSAGE_BYTES = MAX_SENSOR_FRAME_POINTS * SENSOR_FRAME_POINT_BYTES + (1 << 20);

export interface SocketConfig {
  /** Messages queued per peer before a send waits (PUSH) or drops (PUB). Frames are MBs: keep small. */
  sendHighWaterMark: number;
  /** Messages queued per peer on the receiving side. */
  receiveHighWaterMark: number;
  /** How long unsent messages may hold a closing socket (and process exit), in milliseconds. */
  lingerMs: number;
  /** Allow binding a non-loopback address. */
  allowRemote: boolean;
  /** Largest message frame a receiving socket accepts, in bytes; a peer sending more is disconnected. */
  maxMessageBytes: number;
  curve?: CurveConfig;
  /** Report socket trouble (e.g. a CURVE handshake failure) once per kind. */
  warn?: (line: string) => void;
}

export const DEFAULT_SOCKET_CONFIG: SocketConfig = {
  sendHighWaterMark: 32,
  receiveHighWaterMark: 32,
  lingerMs: 2000,
  allowRemote: false,
  // The largest sane SensorFrame (MAX_SENSOR_FRAME_POINTS) and 1 MiB: a 400 MB frame is never buffered.
  maxMessageBytes: MAX_MESSAGE_BYTES,
};

export type InputSocket = Pull | Subscriber;
export type OutputSocket = Push | XPublisher | Publisher;

function applyCommon(socket: Socket, endpoint: Endpoint, cfg: SocketConfig): void {
  socket.linger = cfg.lingerMs;
  const curve = cfg.curve;
  if (!curve) return;
  if (endpoint.mode === 'bind' && curve.keyPair) {
    socket.curveServer = true;
    socket.curvePublicKey = curve.keyPair.publicKey;
    socket.curveSecretKey = curve.keyPair.secretKey;
  } else if (endpoint.mode === 'connect' && curve.serverKey) {
    const own = curve.keyPair ?? generateKeyPair();
    socket.curveServerKey = curve.serverKey;
    socket.curvePublicKey = own.publicKey;
    socket.curveSecretKey = own.secretKey;
  }
}

function watchHandshakes(socket: Socket, endpoint: Endpoint, cfg: SocketConfig): void {
  const warn = cfg.warn;
  if (!warn) return;
  const seen = new Set<string>();
  const report = (type: string, detail: string) => {
    if (seen.has(type)) return;
    seen.add(type);
    warn(`${endpoint.url}: ${type} (${detail}) — check the CURVE keys on both ends`);
  };
  socket.events.on('handshake:error:protocol', (e) => report('handshake failed', e.error.message));
  socket.events.on('handshake:error:auth', (e) => report('handshake rejected', e.error.message));
  socket.events.on('handshake:error:other', (e) => report('handshake failed', e.error.message));
}

async function attach(socket: Socket, endpoint: Endpoint, cfg: SocketConfig): Promise<string> {
  checkBindPolicy(endpoint, cfg.allowRemote);
  if (cfg.curve && cfg.warn) watchHandshakes(socket, endpoint, cfg);
  if (endpoint.mode === 'bind') {
    try {
      await socket.bind(endpoint.url);
    } catch (e) {
      socket.close();
      throw new Error(`${endpoint.url}: cannot bind (${(e as Error).message})`, { cause: e });
    }
    // `tcp://127.0.0.1:*` resolves to a real port here.
    return socket.lastEndpoint ?? endpoint.url;
  }
  socket.connect(endpoint.url);
  return endpoint.url;
}

export interface OpenedInput {
  socket: InputSocket;
  /** The bound or connected address (ephemeral tcp ports resolved). */
  address: string;
}

export interface OpenedOutput {
  socket: OutputSocket;
  address: string;
  /** PUSH only: its connected peers (see peerWatch.ts). */
  peers?: PeerWatch;
}

/**
 * A PULL or SUB socket taking messages up to maxMessageBytes; a SUB subscribes to `topics` (all when
 * empty) and to the begin- and end-of-stream markers.
 */
export async function openInput(
  endpoint: Endpoint,
  cfg: SocketConfig,
  topics: readonly string[] = [],
): Promise<OpenedInput> {
  let socket: InputSocket;
  const options = { receiveHighWaterMark: cfg.receiveHighWaterMark, maxMessageSize: cfg.maxMessageBytes };
  if (endpoint.kind === 'pull') {
    socket = new Pull(options);
  } else if (endpoint.kind === 'sub') {
    const sub = new Subscriber(options);
    if (topics.length === 0 || topics.includes('')) sub.subscribe();
    else sub.subscribe(...topics, BOS_TOPIC, EOS_TOPIC); // $bos first: seen before the $eos a publisher waits for
    socket = sub;
  } else {
    throw new Error(`${endpoint.url}: a ${endpoint.kind} socket cannot receive`);
  }
  applyCommon(socket, endpoint, cfg);
  return { socket, address: await attach(socket, endpoint, cfg) };
}

/**
 * A PUSH or publisher socket. Publishers are XPUB with every subscription reported, so a source can
 * wait for its subscribers before sending (PUB/SUB drops what is sent before a peer subscribes).
 */
export async function openOutput(endpoint: Endpoint, cfg: SocketConfig): Promise<OpenedOutput> {
  let socket: OutputSocket;
  let peers: PeerWatch | undefined;
  if (endpoint.kind === 'push') {
    const push = new Push({ sendHighWaterMark: cfg.sendHighWaterMark });
    peers = watchPeers(push);
    socket = push;
  } else if (endpoint.kind === 'pub') {
    const xpub = new XPublisher({ sendHighWaterMark: cfg.sendHighWaterMark });
    xpub.verbosity = 'allSubs';
    socket = xpub;
  } else {
    throw new Error(`${endpoint.url}: a ${endpoint.kind} socket cannot send`);
  }
  applyCommon(socket, endpoint, cfg);
  return { socket, address: await attach(socket, endpoint, cfg), peers };
}

/**
 * Wait until `count` subscribers have subscribed to end-of-stream (every stream input does, once),
 * or the signal aborts. Returns the number seen.
 */
export async function waitForSubscribers(
  socket: XPublisher,
  count: number,
  signal?: AbortSignal,
): Promise<number> {
  let seen = 0;
  const eos = Buffer.from(EOS_TOPIC);
  const onAbort = () => {
    // Unblock the pending receive; the caller closes the socket afterwards anyway.
    socket.receiveTimeout = 0;
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    socket.receiveTimeout = 100;
    while (seen < count && !signal?.aborted) {
      let frames: Buffer[];
      try {
        frames = await socket.receive();
      } catch (e) {
        if ((e as { code?: string }).code === 'EAGAIN') continue;
        throw e;
      }
      const sub = frames[0];
      // Subscription message: 0x01 followed by the topic prefix; '' (all topics) also covers EOS.
      if (sub && sub[0] === 1 && (sub.length === 1 || sub.subarray(1).equals(eos))) seen++;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    socket.receiveTimeout = -1;
  }
  return seen;
}
