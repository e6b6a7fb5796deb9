// The command layer of bridge-ca and bridgectl: commands declared as data,
// parsed with node:util parseArgs, with help and shell completion generated
// from the same declarations.

export { CliError } from './cli-error.js';
export type { CliIo } from './cli-io.js';
export { isOutputClosed, outputClosed } from './closed-output.js';
export type {
  Command,
  CommandContext,
  CommandResult,
  OptionSpec,
  OptionValues,
} from './command.js';
export {
  PROFILE_KEYS,
  type Profile,
  ProfileFileError,
  type ProfileKey,
  profilesPath,
  readProfiles,
  writeGeneratedProfile,
} from './profile-file.js';
export type { Program } from './program.js';
export { runProgram } from './run-program.js';
