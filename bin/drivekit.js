#!/usr/bin/env node
// Entry point of the `drivekit` command: registers the TypeScript loader (tsx), then runs the CLI.
import { register } from 'tsx/esm/api';

register();
await import('../tools/cli.ts');
