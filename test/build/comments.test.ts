/** Comments speak of the code: no issue numbers or work history in src/ (the history belongs in commits). */
import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

function sources(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.[cm]?[jt]s$/.test(e.name) ? [join(dir, e.name)] : [],
  )
}

it('no comment in src/ names an issue', () => {
  const found = sources(join(ROOT, 'src')).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (/\bissues? #?\d+|\(#\d+\)/i.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
  )
  expect(found).toEqual([])
})
