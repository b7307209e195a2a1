/**
 * What a command takes from outside its code: its environment, its standard streams and its clock. The CLI gives every
 * command the process's own (processDeps); a test runs a command in-process with its own (BaseCommand.runWith,
 * test/helpers/in-process.ts), after gh's `runF` seam: the command's work without a process, with the real services,
 * the real config store and a real server behind the client.
 */
export interface CommandDeps {
  env: NodeJS.ProcessEnv
  stdin: NodeJS.ReadStream
  stdout: NodeJS.WriteStream
  stderr: NodeJS.WriteStream
  /** Milliseconds since the epoch: what "3 minutes ago" is counted from, and the client's clock (429 waits). */
  now: () => number
}

export function processDeps(): CommandDeps {
  return {
    env: process.env,
    now: Date.now,
    stderr: process.stderr,
    // Read when used: Node makes process.stdin (a stream over fd 0, about 1 ms) on its first read.
    get stdin() {
      return process.stdin
    },
    stdout: process.stdout,
  }
}
