/** JSON helpers shared by the CLI and the sandbox (pure: no I/O). */

/** A plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** JSON with object keys sorted at every level, so that equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (!isObject(v)) return v
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    }) ?? 'null'
  )
}

/** Whether `value` nests objects/arrays deeper than `maxDepth` (itself level 1); iterative, so any depth is safe. */
export function nestsDeeper(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (depth > maxDepth) return true
    for (const child of Object.values(v)) stack.push([child, depth + 1])
  }
  return false
}
