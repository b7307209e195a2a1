/**
 * Writes the sandbox's decisions (src/sandbox/decisions.ts, DECISIONS) into README.md between
 * `<!-- decisions -->` and `<!-- decisionsstop -->`, so the table and the code cannot disagree.
 * `--check` exits 1 when the README is stale instead of writing it. Part of `npm run generate`.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {DECISIONS} from '../src/sandbox/decisions.js'

const START = '<!-- decisions -->'
const END = '<!-- decisionsstop -->'

export function decisionsTable(): string {
  const rows = DECISIONS.map((d) => `| ${d.gap} | ${d.decision.replaceAll('|', '\\|')} |`)
  return ["| gap in the spec | the sandbox's decision |", '| --- | --- |', ...rows].join('\n')
}

export function withDecisions(readme: string): string {
  const start = readme.indexOf(START)
  const end = readme.indexOf(END)
  if (start < 0 || end < start) throw new Error(`README.md lacks the ${START} ... ${END} markers`)
  return readme.slice(0, start + START.length) + '\n' + decisionsTable() + '\n' + readme.slice(end)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = join(import.meta.dirname, '..', 'README.md')
  const current = readFileSync(path, 'utf8')
  const next = withDecisions(current)
  if (process.argv.includes('--check')) {
    if (next !== current) {
      console.error('README.md decisions table is stale: run `npm run generate`.')
      process.exit(1)
    }
  } else if (next !== current) writeFileSync(path, next)
}
