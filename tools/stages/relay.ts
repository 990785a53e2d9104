// `drivekit stage relay`: forwards every valid batch from one endpoint to another unchanged — e.g. a
// PULL pipeline re-published on PUB for viewers and recorders. The smallest transform stage.
import { transformStage } from './transformStage.ts';

export const register = transformStage({
  name: 'relay',
  description: 'forward batches from --in to --out unchanged (any record kind; malformed ones are skipped)',
  defaultTopic: 'frames',
  create: () => (batch) => batch,
});
