// CURVE security for stream sockets (ZeroMQ RFC 26 CurveZMQ): Z85 key pairs, key files, and the
// rule that a binding socket is the CURVE server and a connecting socket the client.
import fs from 'node:fs';
import { curveKeyPair } from 'zeromq';
import { writeFileAtomicSync } from '../atomic.ts';
import { InputError } from '../errors.ts';

export interface CurveKeyPair {
  /** Z85 text, 40 characters. */
  publicKey: string;
  secretKey: string;
}

/**
 * CURVE settings of a process. A socket that binds uses `keyPair` as its server identity; a socket
 * that connects encrypts to `serverKey` (with `keyPair` as its own identity, or a fresh one).
 * Without a ZAP handler any client that knows the server key may connect: this gives encryption and
 * server authentication, not client authentication.
 */
export interface CurveConfig {
  keyPair?: CurveKeyPair;
  serverKey?: string;
}

const Z85_KEY = /^[0-9a-zA-Z.\-:+=^!/*?&<>()[\]{}@%$#]{40}$/;

export function isZ85Key(s: string): boolean {
  return Z85_KEY.test(s);
}

export function generateKeyPair(): CurveKeyPair {
  const { publicKey, secretKey } = curveKeyPair();
  return { publicKey, secretKey };
}

/** Write a key pair as JSON (mode 0600: the secret key is in it). */
export function writeKeyFile(file: string, pair: CurveKeyPair): void {
  writeFileAtomicSync(file, JSON.stringify(pair, null, 1) + '\n');
  fs.chmodSync(file, 0o600);
}

export function readKeyFile(file: string): CurveKeyPair {
  if (!fs.existsSync(file)) throw new InputError(file, 'no such key file');
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    throw new InputError(file, 'not a JSON key file (make one with `drivekit stage keygen`)');
  }
  const p = parsed as Partial<CurveKeyPair>;
  if (typeof p.publicKey !== 'string' || !isZ85Key(p.publicKey))
    throw new InputError(file, "'publicKey' is not a 40-character Z85 key");
  if (typeof p.secretKey !== 'string' || !isZ85Key(p.secretKey))
    throw new InputError(file, "'secretKey' is not a 40-character Z85 key");
  return { publicKey: p.publicKey, secretKey: p.secretKey };
}

/** A server public key given inline (Z85) or as a key file (its `publicKey` is used). */
export function resolveServerKey(arg: string): string {
  if (isZ85Key(arg) && !fs.existsSync(arg)) return arg;
  if (!fs.existsSync(arg)) throw new InputError(arg, 'neither a 40-character Z85 key nor a key file');
  const text = fs.readFileSync(arg, 'utf8').trim();
  if (isZ85Key(text)) return text;
  return readKeyFile(arg).publicKey;
}
