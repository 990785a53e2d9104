// Errors that name the input and what is wrong with it, printed by the CLI as one line.
// Anything thrown for bad user input should be an InputError.

export class InputError extends Error {
  override name = 'InputError';
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

/** A one-line description of any thrown value. */
export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message.split('\n')[0];
  return String(e);
}
