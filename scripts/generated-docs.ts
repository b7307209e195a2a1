/**
 * The lists in README.md and docs/*.md that follow from the code, written between markers by `npm run generate`:
 *
 * - `<!-- environment -->`: the environment variables (src/domain/environment.ts, ENVIRONMENT), a table;
 * - `<!-- decisions -->`: the sandbox's decisions (src/sandbox/decisions.ts, DECISIONS), a table;
 * - `<!-- picks -->`: the commands whose id argument is picked on a terminal and completed in a shell, from each
 *   command's `static pick` (as oclif.manifest.json carries it), a list of words;
 * - `<!-- operations -->`: the service's operations with the commands that make them, from each command's
 *   `static operations`, a table;
 * - `<!-- usage TOPIC... -->`: one synopsis line a command of those topics (its arguments and its own flags, as the
 *   manifest has them), in a `sh` block.
 *
 * `--check` exits 1 naming the stale files instead of writing them; test/e2e/generated.test.ts checks the same.
 */
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {ENVIRONMENT} from '../src/domain/environment.js'
import {OPERATIONS} from '../src/domain/schema.js'
import {DECISIONS} from '../src/sandbox/decisions.js'

const ROOT = join(import.meta.dirname, '..')

interface ManifestFlag {
  type: 'boolean' | 'option'
  char?: string
  helpGroup?: string
  helpValue?: string
  options?: string[]
  multiple?: boolean
  required?: boolean
  allowNo?: boolean
}

interface ManifestCommand {
  hidden?: boolean
  pick?: string
  operations?: string[]
  args?: Record<string, {required?: boolean}>
  flags?: Record<string, ManifestFlag>
}

/** Flags every command of a kind has, said once on their own pages (output.md, configuration.md): not in a synopsis. */
const SHARED_FLAGS = new Set(['json', 'jq', 'fields', 'dry-run', 'no-pager', 'api-version', 'help'])

/** `commerce customers list [--status S] ...`: a command's arguments and own flags, required ones bare. */
function synopsis(id: string, c: ManifestCommand): string {
  const words = [`commerce ${id.replaceAll(':', ' ')}`]
  for (const [name, arg] of Object.entries(c.args ?? {})) words.push(arg.required ? name.toUpperCase() : `[${name.toUpperCase()}]`)
  for (const [name, flag] of Object.entries(c.flags ?? {})) {
    if (flag.helpGroup === 'GLOBAL' || SHARED_FLAGS.has(name)) continue
    const value = flag.options ? flag.options.join('|') : (flag.helpValue ?? name.replaceAll('-', '_').toUpperCase())
    const text = flag.type === 'boolean' ? `--${flag.allowNo ? `[no-]${name}` : name}` : `--${name} ${value}${flag.multiple ? '...' : ''}`
    words.push(flag.required ? text : `[${text}]`)
  }
  return words.join(' ')
}

function usageBlock(manifest: Manifest, topics: string[]): string {
  const lines = Object.keys(manifest.commands)
    .filter((id) => !manifest.commands[id].hidden && topics.includes(id.split(':')[0]) && id.split(':').length === 2)
    .sort()
    .map((id) => synopsis(id, manifest.commands[id]))
  // A synopsis, not a line to run (the README examples test runs the `sh` blocks).
  return ['', '', '```text', ...lines, '```', '', ''].join('\n')
}

type Manifest = {commands: Record<string, ManifestCommand>}

function environmentTable(): string {
  const rows = ENVIRONMENT.map((v) => `| ${v.names.map((n) => `\`${n}\``).join(', ')} | ${v.meaning} |`)
  return `\n${['| variable | meaning |', '| --- | --- |', ...rows].join('\n')}\n`
}

function decisionsTable(): string {
  const rows = DECISIONS.map((d) => `| ${d.gap} | ${d.decision.replaceAll('|', '\\|')} |`)
  return `\n${["| gap in the spec | the sandbox's decision |", '| --- | --- |', ...rows].join('\n')}\n`
}

/** `customers delete|get|update`, `orders get|refund` and `products get`: commands grouped by their first words. */
function wordsList(ids: readonly string[]): string {
  const groups = new Map<string, string[]>()
  for (const id of [...ids].sort()) {
    const words = id.split(':')
    const head = words.slice(0, -1).join(' ')
    groups.set(head, [...(groups.get(head) ?? []), words.at(-1)!])
  }
  const items = [...groups].map(([head, tails]) => `\`${head ? `${head} ` : ''}${tails.join('|')}\``)
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`
}

function picksList(manifest: Manifest): string {
  return wordsList(Object.keys(manifest.commands).filter((id) => !manifest.commands[id].hidden && manifest.commands[id].pick))
}

function operationsTable(manifest: Manifest): string {
  const rows = Object.values(OPERATIONS).map((op) => {
    const users = Object.keys(manifest.commands)
      .filter((id) => !manifest.commands[id].hidden && manifest.commands[id].operations?.includes(op.id))
      .sort()
      .map((id) => `\`commerce ${id.replaceAll(':', ' ')}\``)
    const paths = op.versions.map((v) => `\`${op.method} /api/${v}${op.path}\``).join('<br>')
    return `| ${op.id} | ${paths} | ${users.join(', ') || 'none'} |`
  })
  return `\n${['| operation | method and path | commands that make it |', '| --- | --- | --- |', ...rows].join('\n')}\n`
}

/** `text` with every generated section it has marked rewritten. */
export function withGenerated(text: string, manifest: Manifest): string {
  const sections: Record<string, () => string> = {
    decisions: decisionsTable,
    environment: environmentTable,
    operations: () => operationsTable(manifest),
    picks: () => picksList(manifest),
  }
  let out = text
  // `<!-- usage customers orders -->`: the topics are part of the marker.
  out = out.replace(/(<!-- usage ([a-z ]+) -->)[\s\S]*?(<!-- usagestop -->)/g, (_all, start: string, topics: string, stop: string) => {
    return `${start}${usageBlock(manifest, topics.trim().split(/\s+/))}${stop}`
  })
  for (const [name, make] of Object.entries(sections)) {
    const start = `<!-- ${name} -->`
    const end = `<!-- ${name}stop -->`
    let at = out.indexOf(start)
    while (at >= 0) {
      const stop = out.indexOf(end, at)
      if (stop < 0) throw new Error(`${start} without ${end}`)
      out = out.slice(0, at + start.length) + make() + out.slice(stop)
      at = out.indexOf(start, at + start.length + 1)
    }
  }
  return out
}

/** README.md and every page of docs/ (not the command reference, which oclif writes). */
export function generatedFiles(): string[] {
  return [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
  ]
}

export function readManifest(): Manifest {
  return JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const manifest = readManifest()
  const stale: string[] = []
  for (const file of generatedFiles()) {
    const path = join(ROOT, file)
    const current = readFileSync(path, 'utf8')
    const next = withGenerated(current, manifest)
    if (next === current) continue
    if (process.argv.includes('--check')) stale.push(file)
    else writeFileSync(path, next)
  }
  if (stale.length > 0) {
    console.error(`Stale generated sections in ${stale.join(', ')}: run \`npm run generate\`.`)
    process.exit(1)
  }
}
