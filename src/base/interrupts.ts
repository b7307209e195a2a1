/**
 * The one SIGINT (and SIGTERM, SIGHUP) handler of a command. An `interruptible` command gets its controller aborted
 * on the first signal (the reason is the signal's name, which decides the exit code: 130, 143, 129), and finishes
 * what is in progress; later signals are ignored (the command is already stopping). Any other command stops at once,
 * exiting 130 (143, 129) rather than dying by the signal (which a parent process sees as no exit code); exit
 * handlers (the config lock's release) still run.
 */

/** The signals that end a command: Ctrl-C, a job's cancel, a terminal that closed. */
const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** Listens; returns the listeners, for the command to remove when it ends. */
export function listenForInterrupts(on: AbortController | (() => (signal: NodeJS.Signals) => void)): Array<[NodeJS.Signals, () => void]> {
  const stop = on instanceof AbortController ? undefined : on()
  return INTERRUPTS.map((name) => {
    const listener = () => {
      if (stop) stop(name)
      else if (!(on as AbortController).signal.aborted) (on as AbortController).abort(name)
    }
    process.on(name, listener)
    return [name, listener]
  })
}
