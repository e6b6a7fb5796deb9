import type { Command } from '@agent-bridge/cli';
import type { CtlIo } from '../ctl-io.js';
import { collaborationCommands } from './collaboration.js';
import { eventsCommand } from './events.js';
import { healthCommand } from './health.js';
import { permissionsCommands } from './permissions.js';
import { providersCommand } from './providers.js';
import { runCommand } from './run.js';
import {
  sessionsGetCommand,
  sessionsInterruptCommand,
  sessionsListCommand,
  sessionsSendCommand,
  sessionsStartCommand,
  sessionsStopCommand,
} from './sessions.js';
import { uiCommand } from './ui.js';

/** In the order `bridgectl --help` lists them: look, start, drive, watch, stop. */
export const COMMANDS: readonly Command<CtlIo>[] = [
  healthCommand,
  providersCommand,
  sessionsStartCommand,
  sessionsListCommand,
  sessionsGetCommand,
  sessionsSendCommand,
  sessionsInterruptCommand,
  sessionsStopCommand,
  eventsCommand,
  ...permissionsCommands,
  ...collaborationCommands,
  runCommand,
  uiCommand,
];
