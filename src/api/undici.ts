/**
 * undici, imported on first use by what needs it (a proxied client, the webhook listener's forwards and probes):
 * 0.76 MB of bundle and code cache that a command talking straight to the service never loads (node-transport.ts).
 *
 * undici parses HTTP with WebAssembly. By default V8 also recompiles it with its optimising compiler in the
 * background, and the process waits for that before it can exit (about 100 ms after one request); the baseline
 * compiler alone is fast enough for a command's requests. So the flag is set here, before undici's parser is first
 * compiled, and node:v8 is loaded only by a process that uses undici. V8 stamps a code cache with its flags: the
 * caches of the files loaded so far are saved first (bin/compile-cache.js), or the next run, without the flag, would
 * reject them.
 */
let undici: Promise<typeof import('undici')> | undefined

export function loadUndici(): Promise<typeof import('undici')> {
  undici ??= import('node:v8').then(({setFlagsFromString}) => {
    ;(globalThis as Record<symbol, (() => void) | undefined>)[Symbol.for('commerce-cli.code-cache.save-before-flags')]?.()
    setFlagsFromString('--liftoff-only')
    return import('undici')
  })
  return undici
}
