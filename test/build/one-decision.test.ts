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

/**
 * Files of ours (the config directory: config, locks and their owners, journals, ledgers, the inbox, caches; and what
 * a command is pointed at for output: exports, errors files, --export-on-exit) are opened by the own-file helpers
 * (src/domain/own-file.ts: no link followed, no FIFO waited on, reads bounded) or written whole by the atomic writer
 * (src/domain/files.ts). The few files below read or write by other means, each for its reason.
 */
const RAW_FILE_ACCESS: Record<string, string> = {
  'src/domain/files.ts': 'the atomic writer itself',
  'src/domain/own-file.ts': 'the own-file helpers themselves',
  'src/config/lock.ts': "a lock's owner, written exclusively into a private directory before it is renamed into place",
  'src/services/sandbox/exec-export.ts': 'a probe created exclusively (never through a link) to prove DIR writable',
  'src/services/orders.ts': '--from-file: an input the user names (a pipe such as <(…) included)',
  'src/commands/api.ts': '--input: an input the user names',
  'src/services/webhooks/signatures.ts': '--secret-file, --payload-file: inputs the user names',
  'src/services/sandbox/scenarios.ts': 'a scenario file the user names',
  'src/bulk/read.ts': 'an import file the user names',
  'src/bulk/read-csv.ts': 'an import file the user names',
  'src/hooks/prerun.ts': "a plugin's package.json",
  'src/hooks/command-not-found.ts': "oclif's list of linked plugins",
  'src/commands/autocomplete.ts': "the package's own manifest",
  'src/io/jq.ts': "jq-web's source, read by the --jq worker",
}

it('files are read and written through the own-file helpers and the atomic writer, or by a file of the short allow-list', () => {
  // A call naming a path (not a method of a handle, not a function of ours called without one, not a descriptor).
  const raw =
    /(?<![.\w])(readFileSync|writeFileSync|appendFileSync|copyFileSync|createReadStream|createWriteStream|readFile|writeFile|appendFile|openSync|open)\((?!\)|'', \{[^}]*\bfd:)/
  const found = uses(raw, Object.keys(RAW_FILE_ACCESS)).filter((line) => !/\b(function|static async|private( async)?) open\(/.test(line))
  expect(found, 'use src/domain/own-file.ts or src/domain/files.ts (or name the file and its reason here)').toEqual([])
  // The list names files that still need it: one that no longer does is taken off.
  const stale = Object.keys(RAW_FILE_ACCESS).filter((file) => !raw.test(readFileSync(join(ROOT, file), 'utf8')))
  expect(stale).toEqual([])
})

it('a window (--since/--until, MCP since/until) is read by one grammar: src/domain/window-grammar.ts', () => {
  // A span's pattern (`(\d+)(h|d|w|mo)`, `([smhdw])`) written anywhere else is a second grammar.
  expect(uses(/\|mo\)|\[smhdw\]|\(h\|d\|w/, ['src/domain/window-grammar.ts'])).toEqual([])
})

it("the client's transport is chosen in src/api/transports.ts, and undici loaded through src/api/undici.ts only (which sets its V8 flag first)", () => {
  expect(uses(/import\('undici'\)|^import (?!type )[^']*from 'undici'|require\('undici'\)/, ['src/api/undici.ts'])).toEqual([])
  expect(uses(/new NodeTransport\(|EnvHttpProxyAgent\(/, ['src/api/transports.ts'])).toEqual([])
  expect(uses(/setFlagsFromString/, ['src/api/undici.ts'])).toEqual([])
})
