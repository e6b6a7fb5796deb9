// bridgectl as a library: the CLI in-process, and the event rendering `npm run demo` shares.

export { runCli } from './cli.js';
export {
  type ConsoleOptions,
  type RunningConsole,
  startConsole,
} from './console/console-server.js';
export { type ConsoleTarget, daemonTarget, fleetTarget } from './console/console-target.js';
export { ASSETS_DIR } from './console/static-assets.js';
export type { CtlIo } from './ctl-io.js';
export { EXIT } from './exit-codes.js';
export { followEvents } from './follow-events.js';
export { EventRenderer, useColour } from './render-events.js';
