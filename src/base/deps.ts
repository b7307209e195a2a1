/**
 * What a command takes from outside its code: its environment and its standard streams. The CLI gives every
 * command the process's own (processDeps); a test runs a command in-process with its own (BaseCommand.runWith,
 * test/helpers/in-process.ts), after gh's `runF` seam: the command's work without a process, with the real services,
 * the real config store and a real server behind the client.
 */
export interface CommandDeps {
  env: NodeJS.ProcessEnv
  stdin: NodeJS.ReadStream
  stdout: NodeJS.WriteStream
  stderr: NodeJS.WriteStream
}

export function processDeps(): CommandDeps {
  return {env: process.env, stderr: process.stderr, stdin: process.stdin, stdout: process.stdout}
}
