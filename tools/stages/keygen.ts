// `drivekit stage keygen --out <file>`: a CURVE key pair (ZeroMQ RFC 26, Z85 text) as a JSON file for
// --curve-keys; its public key is what connecting stages pass as --curve-server-key.
import type { Command } from 'commander';
import { generateKeyPair, writeKeyFile } from '../../core/stream/curve.ts';
import { addForce, printJson, refuseExisting } from '../cliOptions.ts';

export function register(stage: Command): void {
  const cmd = stage
    .command('keygen')
    .description('write a CURVE key pair (JSON, mode 0600) and print its public key')
    .requiredOption('--out <file>', 'key file to write')
    .option('--json', 'print {"file", "public_key"} as JSON');
  // A key file replaced by mistake locks out every peer holding its public key.
  addForce(cmd, 'an existing key file').action((opts: { out: string; force?: boolean; json?: boolean }) => {
    refuseExisting(opts.out, opts.force);
    const pair = generateKeyPair();
    writeKeyFile(opts.out, pair);
    if (opts.json) printJson({ file: opts.out, publicKey: pair.publicKey });
    else process.stdout.write(pair.publicKey + '\n');
  });
}
