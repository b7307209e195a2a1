/**
 * The README is a front door: at most 400 lines, what the CLI is, how to install it, the quick start, the ways of
 * using it, and where everything else is; every page of docs/ is reachable from it.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

it('README.md has at most 400 lines and links every page of docs/', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  expect(readme.split('\n').length, 'README.md is a front door: move reference material to docs/ and link it').toBeLessThanOrEqual(400)
  const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))
  expect(pages.length).toBeGreaterThan(10)
  expect(pages.filter((page) => !readme.includes(`](docs/${page})`))).toEqual([])
})
