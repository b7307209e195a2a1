/**
 * docs/trust.md is kept true: every row of its tables names at least one test file that `npm test` runs, and each
 * quoted title in a row is the beginning or part of a test's title in one of the files that row names.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const doc = readFileSync(join(ROOT, 'docs', 'trust.md'), 'utf8')
const rows = doc
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| Where') && !line.startsWith('| ---'))
  .map((line) => line.split(' | ').at(-1)!.replace(/ \|$/, ''))

/** The titles of a file's tests and groups (it, test, describe: the first string of each). */
function titles(file: string): string[] {
  return [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\b(?:it|test|describe)(?:\.each\([^)]*\))?\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)].map(
    (m) => m[2],
  )
}

describe('docs/trust.md', () => {
  it('has rows', () => {
    expect(rows.length).toBeGreaterThan(15)
  })

  it.each(rows.map((r) => [r]))('%s names tests that exist and run', (cell) => {
    const files = [...cell.matchAll(/`(test\/[^`]+\.test\.ts)`/g)].map((m) => m[1])
    expect(files.length, cell).toBeGreaterThan(0)
    for (const file of files) {
      expect(existsSync(join(ROOT, file)), file).toBe(true)
      expect(file.startsWith('test/bench/'), file).toBe(false)
      expect(readFileSync(join(ROOT, file), 'utf8'), file).not.toMatch(/\b(?:it|describe|test)\.(?:skip|todo)\(/)
    }
    const all = files.flatMap(titles)
    for (const [, quoted] of cell.matchAll(/"([^"]+)"/g))
      expect(
        all.some((t) => t.includes(quoted)),
        `"${quoted}" in ${files.join(', ')}`,
      ).toBe(true)
  })
})
