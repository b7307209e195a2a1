/**
 * Runs every benchmark in this directory, one after the other: each `*.bench.ts|js|mjs` file is imported and its
 * exported `run()` called with no arguments (its defaults). Files whose name starts with `_` are drafts and are
 * skipped. A benchmark prints its own figures; this runner only frames them, and goes on when one throws.
 *
 *   node --import tsx test/bench/run.js [NAME...] [--json FILE] [--against REF|DIR]
 *
 * NAME keeps only the files whose name contains it (e.g. `startup`). `--json FILE` writes what each `run()`
 * returned, by file name. `--against REF|DIR` is handed to each `run({against})`: the startup benchmark times an
 * older build (a git ref, built from `git archive`, or a folder holding one) beside today's. Exit 1 when a benchmark failed (a figure that misses its goal is not a failure).
 * Needs tsx (for the .ts files) and, for benchmarks that spawn the CLI, the build (`npm run build`).
 */
import {readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

const dir = import.meta.dirname
const args = process.argv.slice(2)
/** The value of `--NAME VALUE`, and the arguments without both words. */
function option(list, name) {
  const at = list.indexOf(name)
  if (at === -1) return [undefined, list]
  if (!list[at + 1]) {
    console.error(`${name} needs a value.`)
    process.exit(2)
  }
  return [list[at + 1], list.filter((_, i) => i !== at && i !== at + 1)]
}
const [jsonFile, rest] = option(args, '--json')
const [against, names] = option(rest, '--against')

const files = readdirSync(dir)
  .filter((f) => /\.bench\.(ts|js|mjs)$/.test(f) && !f.startsWith('_'))
  .filter((f) => names.length === 0 || names.some((n) => f.includes(n)))
  .sort()
if (files.length === 0) {
  console.error(`No benchmark matches ${names.join(', ') || 'in ' + dir}.`)
  process.exit(2)
}

const results = {}
const failed = []
for (const file of files) {
  process.stdout.write(`\n== ${file}\n`)
  const started = performance.now()
  try {
    const bench = await import(pathToFileURL(join(dir, file)).href)
    if (typeof bench.run !== 'function') throw new Error('it exports no run() function')
    results[file] = await bench.run(against === undefined ? undefined : {against})
  } catch (error) {
    failed.push(file)
    process.stdout.write(`FAILED: ${error instanceof Error ? error.message : String(error)}\n`)
  }
  process.stdout.write(`(${file}: ${((performance.now() - started) / 1000).toFixed(1)} s)\n`)
}

if (jsonFile) writeFileSync(jsonFile, JSON.stringify(results, null, 2) + '\n')
if (failed.length > 0) {
  process.stdout.write(`\n${failed.length} of ${files.length} benchmarks failed: ${failed.join(', ')}\n`)
  process.exitCode = 1
}
