/** Words about numbers, for every sentence the CLI writes (a service's status lines, the io layer's notes). */

/** "1 refund", "2 refunds", "20,505 customers" (`plural` for nouns that do not just take an s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? noun : plural}`
}
