/**
 * Access tokens: opaque random strings, held in memory only, with an expiry on the injected clock.
 * A revoked token is remembered until it would have expired, so that revoking it again is 204.
 */
import {createHash, randomBytes, timingSafeEqual} from 'node:crypto'

import type {Scope} from '../domain/schema.js'
import type {KeyPair} from './record-store.js'

export interface TokenRecord {
  keyId: string
  scopes: Scope[]
  expiresAt: number
  revoked: boolean
}

export type TokenLookup = {state: 'valid'; token: TokenRecord} | {state: 'revoked'; token: TokenRecord} | {state: 'expired'} | {state: 'unknown'}

export class Tokens {
  private readonly tokens = new Map<string, TokenRecord>()
  private issuedSincePrune = 0

  constructor(
    private readonly now: () => number,
    private readonly ttlSeconds: number,
  ) {}

  get ttl(): number {
    return this.ttlSeconds
  }

  issue(key: KeyPair, scopes: Scope[]): string {
    if (++this.issuedSincePrune >= 1000) this.prune()
    const token = `sbx_at_${randomBytes(24).toString('base64url')}`
    this.tokens.set(token, {expiresAt: this.now() + this.ttlSeconds * 1000, keyId: key.key_id, revoked: false, scopes})
    return token
  }

  lookup(token: string): TokenLookup {
    const record = this.tokens.get(token)
    if (!record) return {state: 'unknown'}
    if (this.now() >= record.expiresAt) return {state: 'expired'}
    return record.revoked ? {state: 'revoked', token: record} : {state: 'valid', token: record}
  }

  private prune(): void {
    this.issuedSincePrune = 0
    const now = this.now()
    for (const [t, r] of this.tokens) if (now >= r.expiresAt) this.tokens.delete(t)
  }
}

/** The key pair whose id and secret both match; the secret is compared in constant time. */
export function findKeyPair(keys: readonly KeyPair[], keyId: string, keySecret: string): KeyPair | undefined {
  const key = keys.find((k) => k.key_id === keyId)
  if (!key) return undefined
  const digest = (s: string) => createHash('sha256').update(s).digest()
  return timingSafeEqual(digest(key.key_secret), digest(keySecret)) ? key : undefined
}
