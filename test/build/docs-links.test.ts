/** The project's docs stand alone: every relative link of README.md and docs/*.md names a file of this repository. */
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'

import {expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs'), {recursive: true}).map((f) => join('docs', String(f)))].filter((f) =>
  f.endsWith('.md'),
)

it('every relative link of README.md and docs/ names a file inside the repository that exists', () => {
  const bad: string[] = []
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), 'utf8')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:|^#/.test(target)) continue
      const path = resolve(dirname(join(ROOT, page)), target.split('#')[0])
      if (relative(ROOT, path).startsWith('..') || !existsSync(path)) bad.push(`${page}: ${target}`)
    }
  }
  expect(bad, 'links out of the repository or to nothing (a clone has only this repository)').toEqual([])
})
