/** Words about numbers, for every sentence the CLI writes (a service's status lines, the io layer's notes). */

/** "1 refund", "2 refunds", "20,505 customers" (`plural` for nouns that do not just take an s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? noun : plural}`
}

/** `32 MiB`, `1.5 KiB`, `12 bytes`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / 1024 / 1024).toFixed(1)} MiB`
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`
  return `${n} bytes`
}

/** `the token request` -> `The token request`. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
