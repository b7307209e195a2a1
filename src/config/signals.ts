/**
 * The CLI has one interrupt handler (BaseCommand: exit 130, or a graceful stop). conf's writer (atomically)
 * loads when-exit, which on import hooks SIGINT, SIGTERM, SIGHUP and a dozen more to clean its temp files and
 * then sends the signal to the process again: a second Ctrl-C the user never typed, and a listener that decides
 * how the process ends besides ours. Loading conf through this keeps ours the only ones; atomically's clean-up
 * still runs on exit (when-exit's 'exit' listener is kept), and a command's own exit runs it too.
 */

/** Signal events with listeners now, and those listeners. */
function signalListeners(): Map<string | symbol, Set<unknown>> {
  const map = new Map<string | symbol, Set<unknown>>()
  for (const name of process.eventNames())
    if (typeof name === 'string' && name.startsWith('SIG')) map.set(name, new Set(process.listeners(name as NodeJS.Signals)))
  return map
}

/** Runs `load` (an import) and removes every signal listener it added; returns what it loaded and how many were removed. */
export async function withoutForeignSignalListeners<T>(load: () => Promise<T>): Promise<{loaded: T; removed: number}> {
  const before = signalListeners()
  const loaded = await load()
  let removed = 0
  for (const [name, listeners] of signalListeners()) {
    const kept = before.get(name)
    for (const listener of listeners)
      if (!kept?.has(listener)) {
        process.removeListener(name, listener as () => void)
        removed++
      }
  }
  return {loaded, removed}
}
