/**
 * A short reference no other has: 48 random bits in hex (an entry or a run of the history). From Web Crypto, which
 * Node loads when first asked: a command that never makes one loads nothing for it.
 */
export const newReference = (): string => Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(6))).toString('hex')
