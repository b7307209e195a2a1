/**
 * Rules for the source itself: comments speak of the code (no issue numbers or work history in src/: the history
 * belongs in commits), no file in src/ grows past 300 lines (split it where its parts have names of their own), and
 * config.json is written by the config store alone.
 */
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

it('no file in src/ is over 300 lines', () => {
  const long = sources(join(ROOT, 'src'))
    .map((file) => ({file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length - 1}))
    .filter(({lines}) => lines > 300)
  expect(long).toEqual([])
})

it('nothing but the config store (through conf) names config.json for writing', () => {
  const naming = sources(join(ROOT, 'src'))
    .filter((file) => /\bCONFIG_FILE\b/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(ROOT, file))
    .sort()
  expect(naming).toEqual(['src/config/config-store.ts', 'src/config/paths.ts'])
})

it("commands take the process's environment and streams from their deps only (the seam of base/deps.ts)", () => {
  const found = [...sources(join(ROOT, 'src', 'commands')), ...sources(join(ROOT, 'src', 'base')), ...sources(join(ROOT, 'src', 'hooks'))]
    .filter((file) => !file.endsWith(join('base', 'deps.ts')))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bprocess\.(env|stdin|stdout|stderr)\b/.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
    )
  expect(found, 'use this.deps (src/base/deps.ts)').toEqual([])
})

it("services take the environment and streams they use as arguments, never from process (the command's deps)", () => {
  const found = sources(join(ROOT, 'src', 'services')).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        /\bprocess\.(env|stdin|stdout|stderr)\b/.test(line) && !/^\s*(\*|\/\/)/.test(line)
          ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`]
          : [],
      ),
  )
  expect(found).toEqual([])
})
