// `drivekit stage keygen --out <file>`: a CURVE key pair (ZeroMQ RFC 26, Z85 text) as a JSON file for
// --curve-keys; its public key is what connecting stages pass as --curve-server-key.
import type { Command } from 'commander';
import { generateKeyPair, writeKeyFile } from '../../core/stream/curve.ts';

export function register(stage: Command): void {
  stage
    .command('keygen')
    .description('write a CURVE key pair (JSON, mode 0600) and print its public key')
    .requiredOption('--out <file>', 'key file to write')
    .option('--json', 'print {"file", "publicKey"} as JSON')
    .action((opts: { out: string; json?: boolean }) => {
      const pair = generateKeyPair();
      writeKeyFile(opts.out, pair);
      process.stdout.write(
        opts.json
          ? JSON.stringify({ file: opts.out, publicKey: pair.publicKey }) + '\n'
          : pair.publicKey + '\n',
      );
    });
}
