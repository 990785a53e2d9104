#!/usr/bin/env node
// Entry point of the `drivekit` command: registers the TypeScript loader (tsx), makes sure glibc keeps
// freed memory for reuse (core/mallocEnv.ts), then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { reexecWithTunedMalloc } = await import('../core/mallocEnv.ts');
if (!reexecWithTunedMalloc()) await import('../tools/cli.ts');
