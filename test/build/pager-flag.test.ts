/**
 * `--no-pager` is offered where it means something: on exactly the commands whose result goes through the pager (a
 * table through `output.list`, a report through `output.paged`), and on no other (a command that never pages would
 * take a flag that does nothing).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {flags: Record<string, unknown>; pluginName?: string; isESM?: boolean; relativePath?: string[]}>
}

describe('--no-pager', () => {
  it('is a flag of exactly the commands that page their result', () => {
    const ours = Object.entries(manifest.commands).filter(([, c]) => c.relativePath?.[0] === 'dist' || c.relativePath?.[0] === 'src')
    expect(ours.length).toBeGreaterThan(40)
    const wrong: string[] = []
    for (const [id, command] of ours) {
      const source = readFileSync(join(ROOT, 'src', 'commands', ...id.split(':')) + '.ts', 'utf8')
      const pages = /\bthis\.output\.(list|paged)\(/.test(source)
      if (pages !== 'no-pager' in command.flags) wrong.push(`${id}: ${pages ? 'pages without --no-pager' : 'offers --no-pager and never pages'}`)
    }
    expect(wrong).toEqual([])
  })
})
