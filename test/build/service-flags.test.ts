/**
 * Services know their options, not the flags a command maps onto them (docs/development.md, "The layers"; Shopify CLI's
 * docs/cli/conventions.md): a message naming an option is a Phrase (src/domain/phrase.ts) that the command spells.
 * The one place a service may write a flag is a command line it tells a person to run next, quoted as
 * `commerce ...` (as Shopify's "next steps" name commands).
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import ts from 'typescript'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

function sources(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** The text of every string and template piece in a file. */
export function strings(file: string, text: string): string[] {
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) found.push(node.text)
    else if (ts.isTemplateExpression(node)) {
      found.push(node.head.text)
      for (const span of node.templateSpans) {
        visit(span.expression)
        found.push(span.literal.text)
      }
      return
    }
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true))
  return found
}

/** The flags a string names outside a quoted `commerce ...` command line. */
export function flagsNamed(text: string): string[] {
  const outside = text.replace(/`commerce [^`]*(`|$)/g, '')
  return [...outside.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0])
}

describe('services name options, not flags', () => {
  it('finds flags in strings, but not in command lines or comments', () => {
    expect(strings('a.ts', "// --x\nconst a = '--from-file: bad'\nconst b = `${a} --c ${`--d`}`")).toEqual([
      '--from-file: bad',
      '',
      ' --c ',
      '--d',
      '',
    ])
    expect(flagsNamed('--from-file: bad; run `commerce sandbox start --detach`, or `commerce auth login --sandbox')).toEqual(['--from-file'])
    expect(flagsNamed('a-b --c x--y')).toEqual(['--c'])
  })

  it('no string in src/services names a flag', () => {
    const found = sources(join(ROOT, 'src', 'services')).flatMap((file) =>
      strings(file, readFileSync(file, 'utf8')).flatMap((s) =>
        flagsNamed(s).map((flag) => `${relative(ROOT, file)}: ${flag} in ${JSON.stringify(s)}`),
      ),
    )
    expect(found, 'write phrase`${option(NAME)}` (src/domain/phrase.ts) instead').toEqual([])
  })
})
