/** The README stays a guide: at most 1,100 lines (reference material goes to docs/, linked from it). */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

it('README.md has at most 1,100 lines, and links the reference pages moved out of it', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  expect(readme.split('\n').length, 'README.md is a guide: move reference material to docs/ and link it').toBeLessThanOrEqual(1100)
  for (const page of ['docs/sandbox.md', 'docs/webhooks.md', 'docs/trust.md', 'docs/deadlines.md']) expect(readme).toContain(`](${page})`)
})
