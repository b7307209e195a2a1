/**
 * Help that reflows: every command's `--help`, and every topic's, rendered at 80 and 120 columns (OCLIF_COLUMNS,
 * as a terminal of that width would give). Descriptions are paragraphs that oclif wraps to the width, so no line
 * may end early while its sentence goes on below: when the next line's first word would have fitted on this
 * one, a hard line break in the source cut the sentence. Topic listings show each command's one-sentence summary
 * whole.
 *
 * Not checked: USAGE (oclif lays out the synopsis itself), EXAMPLES (command lines, never wrapped), oclif's own
 * `<options: …>` line, and a line that opens a list (ends with ':') or is followed by a list item.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT, run} from '../helpers/cli.js'

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {summary?: string; description?: string; hidden?: boolean; pluginType?: string}>
}
const ids = Object.keys(manifest.commands).filter((id) => !manifest.commands[id].hidden)
const topics = [...new Set(ids.filter((id) => id.includes(':')).map((id) => id.split(':').slice(0, -1).join(':')))]

const SKIPPED_SECTIONS = new Set(['USAGE', 'EXAMPLES', 'ALIASES'])
const LIST_ITEM = /^\s*(- |\* |\d+[.)] |<options: )/
const HEADING = /^[A-Z][A-Z ]+$/
const indent = (line: string) => line.length - line.trimStart().length

/** Each place where a line stops while the next line's first word would still have fitted within `width`. */
export function earlyBreaks(text: string, width: number): string[] {
  const found: string[] = []
  const lines = text.split('\n')
  let section = ''
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i]
    if (HEADING.test(line)) {
      section = line
      continue
    }
    if (SKIPPED_SECTIONS.has(section)) continue
    const next = lines[i + 1]
    if (line.trim() === '' || next.trim() === '' || HEADING.test(next)) continue
    if (line.trimEnd().endsWith(':') || LIST_ITEM.test(next)) continue
    // In a table (ARGUMENTS, FLAGS, COMMANDS, TOPICS) a new row starts at the left margin (2 or 6 spaces: a flag
    // without a short form); only a line indented to the description column continues the one above.
    if (section !== 'DESCRIPTION' && indent(next) < 8) continue
    const firstWord = next.trim().split(/\s+/)[0]
    if (line.trimEnd().length + 1 + firstWord.length <= width) found.push(`${line.trimEnd()}⏎\n${next}`)
  }
  return found
}

describe('earlyBreaks', () => {
  it('finds a sentence cut by a hard line break, and not a line filled to the width', () => {
    expect(earlyBreaks('DESCRIPTION\n  nor when you pass your own\n  Authorization header.', 80)).toHaveLength(1)
    expect(earlyBreaks(`DESCRIPTION\n  ${'word '.repeat(15).trim()}\n  continues`, 80)).toHaveLength(0)
    expect(earlyBreaks('DESCRIPTION\n  Exit codes:\n  - 0 fine', 80)).toHaveLength(0)
  })
})

async function help(args: string[], columns: number): Promise<string> {
  const r = await run([...args, '--help'], {env: {OCLIF_COLUMNS: String(columns)}})
  expect(r.code, r.stderr).toBe(0)
  return r.stdout
}

describe.each([80, 120])('at %i columns', (columns) => {
  it('no command help has a line that ends early', async () => {
    const problems: string[] = []
    for (let i = 0; i < ids.length; i += 6)
      await Promise.all(
        ids.slice(i, i + 6).map(async (id) => {
          const text = await help(id.split(':'), columns)
          for (const cut of earlyBreaks(text, columns)) problems.push(`commerce ${id.replaceAll(':', ' ')} --help:\n${cut}`)
        }),
      )
    expect(problems, problems.join('\n\n')).toEqual([])
  })

  it("topic listings show each command's summary whole, and the topics' help reflows too", async () => {
    for (const topic of topics) {
      const text = await help(topic.split(':'), columns)
      expect(earlyBreaks(text, columns), text).toEqual([])
      const listed = text.slice(text.indexOf('COMMANDS')).replace(/\s+/g, ' ')
      for (const id of ids.filter((c) => c.startsWith(`${topic}:`) && c.split(':').length === topic.split(':').length + 1)) {
        const summary = manifest.commands[id].summary
        expect(summary, `${id} has no summary`).toBeTruthy()
        expect(summary, `${id}: one sentence`).not.toMatch(/[.!?] [A-Z]/)
        expect(listed, `${id}'s summary is cut in \`commerce ${topic} --help\``).toContain(summary!.replace(/\s+/g, ' '))
      }
    }
  })
})

describe('the root help (`commerce` alone)', () => {
  it('fits a 24-row terminal at 80 columns, and names each word once: a topic with a command of its own is a topic', async () => {
    const text = await help([], 80)
    expect(text.trimEnd().split('\n').length, text).toBeLessThanOrEqual(30)
    const words = (section: string) => {
      const start = text.indexOf(`\n${section}\n`)
      const body = text.slice(start + section.length + 2).split('\n\n')[0]
      return body.split('\n').flatMap((line) => /^ {2}(\S+)/.exec(line)?.[1] ?? [])
    }
    const topicWords = words('TOPICS')
    const commandWords = words('COMMANDS')
    expect(topicWords).toContain('plugins')
    expect(commandWords).toContain('doctor')
    expect(commandWords.filter((w) => topicWords.includes(w))).toEqual([])
  })
})
