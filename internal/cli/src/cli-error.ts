/** A failure to report as one line with this exit status. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}
