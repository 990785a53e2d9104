// Stream endpoints: `[push|pull|pub|sub:][bind|connect:]<zeromq-url>` parsed into a socket kind, a
// bind/connect mode and a ZeroMQ URL (tcp://, ipc://, inproc://), with the loopback-only bind policy.
import { InputError } from '../errors.ts';

export type SocketKind = 'push' | 'pull' | 'pub' | 'sub';
export type ConnectMode = 'bind' | 'connect';
/** Which side of a stage an endpoint is on: `in` receives (pull|sub), `out` sends (push|pub). */
export type EndpointSide = 'in' | 'out';

export interface Endpoint {
  kind: SocketKind;
  mode: ConnectMode;
  /** The ZeroMQ URL, e.g. `ipc:///tmp/frames.sock` or `tcp://127.0.0.1:5555`. */
  url: string;
}

const SIDE_KINDS: Record<EndpointSide, readonly SocketKind[]> = {
  in: ['pull', 'sub'],
  out: ['push', 'pub'],
};

/** Defaults: an input is a PULL that connects, an output a PUSH that binds (upstream binds). */
const SIDE_DEFAULTS: Record<EndpointSide, { kind: SocketKind; mode: ConnectMode }> = {
  in: { kind: 'pull', mode: 'connect' },
  out: { kind: 'push', mode: 'bind' },
};

/** Linux caps a unix socket path at 107 bytes (sun_path is 108 with the NUL). */
const MAX_IPC_PATH = 107;

export const ENDPOINT_HELP = [
  'Endpoint syntax: [push|pull|pub|sub:][bind|connect:]<url>, url = tcp://host:port | ipc:///path | inproc://name.',
  'Defaults: --in is pull+connect, --out is push+bind. tcp port * binds an ephemeral port (printed on stderr).',
  'Binds are loopback-only (127.0.0.0/8, ::1, localhost, ipc, inproc) unless --allow-remote is given.',
].join('\n');

/** Parse an endpoint spec for one side of a stage; throws InputError naming the spec on any problem. */
export function parseEndpoint(spec: string, side: EndpointSide): Endpoint {
  let rest = spec.trim();
  let kind: SocketKind | undefined;
  let mode: ConnectMode | undefined;
  // Prefix tokens never collide with URL schemes (tcp/ipc/inproc), so peel them off one by one.
  for (;;) {
    const m = /^(push|pull|pub|sub|bind|connect):(?!\/\/)/.exec(rest);
    if (!m) break;
    const token = m[1];
    if (token === 'bind' || token === 'connect') {
      if (mode) throw new InputError(spec, 'endpoint names bind/connect twice');
      mode = token;
    } else {
      if (kind) throw new InputError(spec, 'endpoint names a socket type twice');
      kind = token as SocketKind;
    }
    rest = rest.slice(m[0].length);
  }
  kind ??= SIDE_DEFAULTS[side].kind;
  mode ??= SIDE_DEFAULTS[side].mode;
  if (!SIDE_KINDS[side].includes(kind)) {
    throw new InputError(
      spec,
      `a ${kind.toUpperCase()} socket cannot be an ${side}put (use ${SIDE_KINDS[side].join(' or ')})`,
    );
  }
  checkUrl(spec, rest);
  return { kind, mode, url: rest };
}

function checkUrl(spec: string, url: string): void {
  const m = /^(tcp|ipc|inproc):\/\/(.+)$/.exec(url);
  if (!m)
    throw new InputError(spec, 'not a ZeroMQ URL (expected tcp://host:port, ipc:///path or inproc://name)');
  const [, scheme, address] = m;
  if (scheme === 'ipc' && Buffer.byteLength(address) > MAX_IPC_PATH) {
    throw new InputError(spec, `ipc path is longer than ${MAX_IPC_PATH} bytes (a unix socket limit)`);
  }
  if (scheme === 'tcp') {
    const hp = splitHostPort(address);
    if (!hp) throw new InputError(spec, 'tcp address must be host:port');
    if (hp.port !== '*' && !(/^\d+$/.test(hp.port) && Number(hp.port) > 0 && Number(hp.port) < 65536)) {
      throw new InputError(spec, `tcp port '${hp.port}' is not 1–65535 or *`);
    }
  }
}

function splitHostPort(address: string): { host: string; port: string } | null {
  const bracketed = /^\[([^\]]+)\]:([^:]+)$/.exec(address);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] };
  const i = address.lastIndexOf(':');
  if (i <= 0) return null;
  return { host: address.slice(0, i), port: address.slice(i + 1) };
}

/** True when binding `url` can only be reached from this machine. */
export function isLoopbackUrl(url: string): boolean {
  if (url.startsWith('ipc://') || url.startsWith('inproc://')) return true;
  const hp = splitHostPort(url.replace(/^tcp:\/\//, ''));
  if (!hp) return false;
  const host = hp.host.toLowerCase();
  return host === 'localhost' || host === 'lo' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Refuse a non-loopback bind unless explicitly allowed (docs/architecture.md: sockets bind to loopback). */
export function checkBindPolicy(endpoint: Endpoint, allowRemote: boolean): void {
  if (endpoint.mode === 'bind' && !allowRemote && !isLoopbackUrl(endpoint.url)) {
    throw new InputError(
      endpoint.url,
      'refusing to bind a non-loopback address (pass --allow-remote, and consider CURVE keys)',
    );
  }
}

export function formatEndpoint(e: Endpoint): string {
  return `${e.kind}:${e.mode}:${e.url}`;
}
