/** "Did you mean": the nearest of a set of names (commands, flags), by edit distance. */

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = current
  }
  return previous[b.length]
}

/** The nearest name, if it is near enough to be what was meant. */
export function closest(name: string, names: readonly string[], prefer?: string): string | undefined {
  let best: {name: string; distance: number} | undefined
  for (const candidate of names) {
    const distance = editDistance(name, candidate)
    // On a tie, `prefer` (the current API version, say) is the better guess than whichever is listed first.
    if (!best || distance < best.distance || (distance === best.distance && candidate === prefer)) best = {distance, name: candidate}
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined
}

/** Whether `a` is one slip of the keyboard from `b`: one letter wrong, missing, extra, or two neighbours swapped. */
export function oneSlip(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false
  if (editDistance(a, b) === 1) return true
  if (a.length !== b.length) return false
  const differ = [...a].flatMap((ch, i) => (ch === b[i] ? [] : [i]))
  return differ.length === 2 && differ[1] === differ[0] + 1 && a[differ[0]] === b[differ[1]] && a[differ[1]] === b[differ[0]]
}
