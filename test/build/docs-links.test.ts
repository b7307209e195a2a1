/**
 * The project's docs stand alone: every relative link of README.md and docs/*.md names a file of this repository,
 * every `#anchor` names a heading of the page it points to (as GitHub makes anchors), and every command is in the
 * generated reference.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'

import {expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs'), {recursive: true}).map((f) => join('docs', String(f)))].filter((f) =>
  f.endsWith('.md'),
)

/** The anchors of a Markdown page, as GitHub makes them: a heading lower-cased, punctuation dropped, spaces to dashes. */
function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  let fenced = false
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line)
    if (!heading) continue
    const base = heading[1]
      .trim()
      .toLowerCase()
      .replaceAll(/[^\p{L}\p{N}\- _]/gu, '')
      .replaceAll(' ', '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

it('every relative link of README.md and docs/ names a file inside the repository that exists, and an anchor of it', () => {
  const bad: string[] = []
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), 'utf8')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue
      const [file, anchor] = target.split('#')
      const path = file === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), file)
      if (relative(ROOT, path).startsWith('..') || !existsSync(path)) bad.push(`${page}: ${target}`)
      else if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(path).has(anchor)) bad.push(`${page}: ${target} (no such heading)`)
    }
  }
  expect(bad, 'links out of the repository, to nothing, or to a heading that is not there').toEqual([])
})

it('every command of the manifest is in the generated command reference', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {hidden?: boolean}>}
  const missing = Object.entries(manifest.commands)
    .filter(([, c]) => !c.hidden)
    .map(([id]) => id)
    .filter((id) => {
      const page = join(ROOT, 'docs', 'commands', `${id.split(':')[0]}.md`)
      return !existsSync(page) || !new RegExp(`^## \`commerce ${id.replaceAll(':', ' ')}[ \`]`, 'm').test(readFileSync(page, 'utf8'))
    })
  expect(missing).toEqual([])
})
