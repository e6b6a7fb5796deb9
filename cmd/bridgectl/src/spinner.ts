const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A progress line on a terminal's stderr; does nothing when stderr is not a terminal. */
export interface Spinner {
  /** Shows `text` until `stop` (replacing what was shown). */
  start(text: string): void;
  /** Clears the line. */
  stop(): void;
}

export function createSpinner(write: (text: string) => void, enabled: boolean): Spinner {
  let timer: NodeJS.Timeout | undefined;
  let frame = 0;
  const stop = () => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    write('\r\x1b[2K');
  };
  return {
    start(text) {
      if (!enabled) return;
      stop();
      const draw = () => write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text}`);
      draw();
      timer = setInterval(draw, 80);
      // A spinner never keeps the process alive on its own.
      timer.unref();
    },
    stop,
  };
}
