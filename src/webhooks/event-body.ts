/** What the listener checks of a delivery before verifying it: its media type and its event fields. */
/** application/json, or any `+json` type (a charset parameter allowed). */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false
  const type = value.split(';', 1)[0].trim().toLowerCase()
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)
}

export function parseEvent(body: Buffer): {id: string; type: string; created_at: string | null} | undefined {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    return undefined
  }
  if (!value || typeof value !== 'object') return undefined
  const {id, type, created_at: createdAt} = value as Record<string, unknown>
  if (typeof id !== 'string' || typeof type !== 'string') return undefined
  return {created_at: typeof createdAt === 'string' ? createdAt : null, id, type}
}
