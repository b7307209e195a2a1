/**
 * Paths named in the docs and in the source's comments exist: a file moved or renamed leaves no reader looking for it
 * (`docs/deadlines.md` named test/e2e/client-faults.test.ts after it moved to test/commands/). A path is a repository
 * path (`src/…`, `test/…`, `scripts/…`, `docs/…`, `examples/…`, `bin/…`, `schemas/…`) or, in src/, one of src/'s own
 * (`base/stats-window.ts`).
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

function files(dir: string, ending: RegExp): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), ending) : ending.test(e.name) ? [join(dir, e.name)] : [],
  )
}

const REPO_PATH = /(?<![\w./-])((?:src|test|scripts|docs|examples|bin|schemas)\/[\w./-]*\w\.(?:ts|js|mjs|cjs|md|json|sh))\b/g
const SRC_PATH = /(?<![\w./-])((?:api|base|bulk|commands|config|domain|hooks|io|sandbox|services|webhooks)\/[\w./-]*\w\.ts)\b/g

function missing(file: string, text: string, inSrc: boolean): string[] {
  const found: string[] = []
  for (const [, path] of text.matchAll(REPO_PATH)) if (!existsSync(join(ROOT, path))) found.push(`${relative(ROOT, file)}: ${path}`)
  if (inSrc)
    for (const [, path] of text.matchAll(SRC_PATH))
      if (!existsSync(join(ROOT, 'src', path)) && !existsSync(join(ROOT, path))) found.push(`${relative(ROOT, file)}: ${path}`)
  return found
}

/** Paths a page names on purpose though they do not exist: the worked example of a new command. */
const EXAMPLES = new Set(['docs/development.md: src/commands/customers/archive.ts'])

it('every repository path named in docs/ (the generated reference aside) and README.md exists', () => {
  const docs = [join(ROOT, 'README.md'), ...files(join(ROOT, 'docs'), /\.md$/).filter((f) => !f.includes(join('docs', 'commands')))]
  // A fenced block is a user's shell or CI file (`commerce fixtures run test/fixtures.json`): their paths, not ours.
  const prose = (text: string) => text.replaceAll(/```[\s\S]*?```/g, '')
  expect(docs.flatMap((file) => missing(file, prose(readFileSync(file, 'utf8')), false)).filter((line) => !EXAMPLES.has(line))).toEqual([])
})

it("every path named in a comment of src/ exists (a repository path, or one of src/'s own)", () => {
  const comments = (text: string) => [...text.matchAll(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g)].map((m) => m[0]).join('\n')
  const found = files(join(ROOT, 'src'), /\.ts$/).flatMap((file) => missing(file, comments(readFileSync(file, 'utf8')), true))
  expect(found).toEqual([])
})

it("the plugin API the docs give is this package's name, and each command's flags say what they do (customers update --yes)", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {name: string}
  const plugins = readFileSync(join(ROOT, 'docs', 'aliases-and-plugins.md'), 'utf8')
  expect(plugins).toContain(`require('${pkg.name}')`)
  expect(plugins).not.toMatch(/require\('commerce-cli'\)/)
  // No question is asked unless the customer was picked on a terminal: --yes is never required there.
  const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<string, {flags: Record<string, {description?: string}>}>
  }
  expect(manifest.commands['customers:update'].flags.yes.description).not.toMatch(/required without a terminal/)
  expect(manifest.commands['customers:delete'].flags.yes.description).toMatch(/required without a terminal/)
})
