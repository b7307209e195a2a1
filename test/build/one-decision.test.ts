/**
 * A decision that more than one surface meets lives in one module, and a source test fails when code outside it does
 * the same work by other means (docs/architecture in docs/development.md: "Surfaces render decisions").
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

/** Lines of src/ (outside `except` and the sandbox, which decides as the service) that match `pattern`, comments aside. */
function uses(pattern: RegExp, except: string[]): string[] {
  return sources(join(ROOT, 'src'))
    .map((file) => relative(ROOT, file))
    .filter((file) => !except.includes(file) && !file.startsWith('src/sandbox/'))
    .flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) && !/^\s*(\*|\/\/)/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    )
}

it('an Idempotency-Key is drawn or derived in src/domain/idempotency.ts only (never from the content alone)', () => {
  expect(uses(/\brandomUUID\b|\buuidv5\(|createHash\('sha1'\)/, ['src/domain/idempotency.ts'])).toEqual([])
})

it("a service's timestamp is read by src/domain/timestamp.ts only (Date.parse is lenient: 0 is the year 2000)", () => {
  expect(uses(/Date\.parse\([^)]*\b(placed_at|created_at|updated_at|received_at)\b/, [])).toEqual([])
})
