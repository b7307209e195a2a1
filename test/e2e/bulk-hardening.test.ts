/**
 * Hardening against hostile data, with the built CLI and the sandbox: hostile import files (a row the service refuses as too large,
 * metadata nested past what it takes, invalid UTF-8, a line past the record bound), a rerun of a finished
 * import counting this run apart from the earlier one, the export file opened exclusively with mode 0600
 * (never through a planted link), --escape-formulas, and the invitations an import will send.
 */
import {lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {MAX_RECORD_BYTES} from '../../src/domain/bulk-formats.js'
import {run} from '../helpers/cli.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {keyPairEnv} from '../helpers/login.js'

const fx = useSandboxFixture()
const files = mkdtempSync(join(tmpdir(), 'commerce-bulk-hard-'))
afterAll(() => rmSync(files, {force: true, recursive: true}))

let n = 0
function file(ext: string, content: string | Buffer): string {
  const path = join(files, `h${++n}.${ext}`)
  writeFileSync(path, content)
  return path
}
const cli = (args: string[]) => run(args, {env: keyPairEnv(fx.dir, fx.sb.baseUrl, fx.sb.keys[0]), timeoutMs: 60_000})

describe('hostile import rows', () => {
  it('a row the service refuses as too large (413) fails, the rows after it are created, and a rerun goes past it', async () => {
    const big = JSON.stringify({email: 'big@h.io', metadata: {blob: 'x'.repeat(1.5 * 1024 * 1024)}, name: 'Big'})
    const f = file('jsonl', [JSON.stringify({email: 'a413@h.io', name: 'A'}), big, JSON.stringify({email: 'b413@h.io', name: 'B'})].join('\n') + '\n')
    const r = await cli(['customers', 'import', f, '--json'])
    expect(r.code, r.stderr).toBe(1)
    expect(r.json()).toEqual({created: 2, updated: 0, skipped: 0, failed: 1, invalid: 0, already_done: 0})
    expect(r.stderr).toMatch(/line 2: .*(too large|larger)/i)
    expect(r.stderr).not.toMatch(/Run the same command again/)

    const again = await cli(['customers', 'import', f, '--json'])
    expect(again.code, again.stderr).toBe(1)
    expect(again.json()).toEqual({created: 0, updated: 0, skipped: 0, failed: 1, invalid: 0, already_done: 2})
  })

  it('metadata nested 5,000 levels deep, invalid UTF-8 and a line past the bound: invalid rows by line, nothing sent for them', async () => {
    const deep = `{"email":"deep@h.io","name":"Deep","metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`
    const notUtf8 = Buffer.concat([Buffer.from('{"email":"bad@h.io","name":"B'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])
    const long = `{"email":"long@h.io","name":"L","metadata":{"x":"${'y'.repeat(MAX_RECORD_BYTES)}"}}`
    const ok = JSON.stringify({email: 'fine@h.io', name: 'Fine'})
    const f = file('jsonl', Buffer.concat([Buffer.from(deep + '\n'), notUtf8, Buffer.from(`\n${long}\n${ok}\n`)]))
    const before = fx.sb.counts().customers
    const r = await cli(['customers', 'import', f])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/line 1: metadata nests deeper than the service takes/)
    expect(r.stderr).toMatch(/line 2: is not valid UTF-8/)
    expect(r.stderr).toMatch(/line 3: is longer than 4 MiB/)
    expect(r.stderr).not.toMatch(/RangeError|outcome unknown/)
    expect(fx.sb.counts().customers).toBe(before)

    const skipped = await cli(['customers', 'import', f, '--skip-invalid', '--json'])
    expect(skipped.code, skipped.stderr).toBe(0)
    expect(skipped.json()).toEqual({created: 1, updated: 0, skipped: 0, failed: 0, invalid: 3, already_done: 0})
    expect(fx.sb.counts().customers).toBe(before + 1)
  })
})

describe('messages about rows', () => {
  it('show control characters from the file escaped: a hostile cell cannot retitle or recolour the terminal', async () => {
    const f = file(
      'jsonl',
      `${JSON.stringify({email: 'x\u001b]0;PWNED\u0007\u001b[31m@h.io', name: 'Eve', 'y\u001b]0;PWNED\u0007': 1})}\n${JSON.stringify({email: 'ok-esc@h.io', name: 'Ok'})}\n`,
    )
    const r = await cli(['customers', 'import', f, '--skip-invalid', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('skipping invalid line 1')
    expect(r.stderr).not.toContain('\u001b')
    expect(r.stderr).not.toContain('\u0007')
    expect(r.stderr).toContain('x\\e]0;PWNED')
    // A field of the service's that the import ignores is named in the summary, its escapes as text (on a terminal).
    const human = await cli(['customers', 'import', f, '--skip-invalid'])
    expect(human.stdout).toContain('ignored_fields')
    expect(human.stdout).not.toContain('\u0007')
  })
})

describe('the errors file', () => {
  it('is written 0600 through a temp file: a link planted at its name is replaced, not written through', async () => {
    const dir = mkdtempSync(join(files, 'errors-'))
    const errors = join(dir, 'errors.csv')
    const victim = join(dir, 'victim.txt')
    writeFileSync(victim, 'untouched\n')
    symlinkSync(victim, errors)
    const f = file('csv', 'email,name\nbroken,Bad\nef-ok@h.io,Fine\n')
    const r = await cli(['customers', 'import', f, '--skip-invalid', '--errors-file', errors, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n')
    expect(lstatSync(errors).isSymbolicLink()).toBe(false)
    expect(statSync(errors).mode & 0o777).toBe(0o600)
    expect(readFileSync(errors, 'utf8')).toMatch(/^line,status,reason\n2,invalid,/)
    expect(readdirSync(dir).sort()).toEqual(['errors.csv', 'victim.txt'])
  })
})

describe('invitations', () => {
  it('says how many invitations it will send when rows leave send_invite unset; --no-send-invite sends none', async () => {
    const csv = 'email,name,send_invite\ninv1@h.io,One,\ninv2@h.io,Two,false\ninv3@h.io,Three,true\n'
    const dry = await cli(['customers', 'import', file('csv', csv), '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stderr).toContain('Up to 2 customers would get an invitation email (1 of them leaves send_invite unset; --no-send-invite: none).')

    const path = file('csv', csv)
    const real = await cli(['customers', 'import', path, '--json'])
    expect(real.code, real.stderr).toBe(0)
    expect(real.stderr).toContain('Up to 2 customers will get an invitation email')
    // The same import again: every row is done (the journal), so nothing is sent and no invitation announced.
    const again = await cli(['customers', 'import', path, '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('Nothing to send: every row was done by an earlier run of this import.')
    expect(again.stderr).not.toContain('invitation')

    const quiet = await cli(['customers', 'import', file('csv', csv.replaceAll(/inv(\d)@/g, 'quiet$1@')), '--no-send-invite', '--json'])
    expect(quiet.code, quiet.stderr).toBe(0)
    expect(quiet.stderr).not.toContain('invitation')
    const listed = await cli(['customers', 'list', '--search', 'quiet', '--json'])
    const statuses = Object.fromEntries(listed.json<Array<{email: string; status: string}>>().map((c) => [c.email, c.status]))
    expect(statuses).toEqual({'quiet1@h.io': 'active', 'quiet2@h.io': 'active', 'quiet3@h.io': 'invited'})
  })
})

describe('the export file', () => {
  it("is created 0600 (not the umask's 0644), through a random temp name: links planted at the old temp names are not followed", async () => {
    const dir = mkdtempSync(join(files, 'out-'))
    const target = join(dir, 'customers.csv')
    const victim = join(dir, 'victim.txt')
    writeFileSync(victim, 'untouched\n')
    // The old temp name was predictable (.NAME.PID.tmp): plant links at the PIDs the child is likely to get.
    const last = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'))
    const planted = Array.from({length: 300}, (_, i) => `.customers.csv.${last + 1 + i}.tmp`)
    for (const name of planted) symlinkSync(victim, join(dir, name))
    const r = await run(['customers', 'export', '--format', 'csv', '--output', target], {env: keyPairEnv(fx.dir, fx.sb.baseUrl, fx.sb.keys[0])})
    expect(r.code, r.stderr).toBe(0)
    expect(statSync(target).mode & 0o777).toBe(0o600)
    expect(lstatSync(target).isSymbolicLink()).toBe(false)
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n')
    expect(readdirSync(dir).sort()).toEqual([...planted, 'customers.csv', 'victim.txt'].sort())
  })

  it('a link planted at --output itself is replaced, not written through', async () => {
    const dir = mkdtempSync(join(files, 'out-'))
    const target = join(dir, 'c.jsonl')
    const victim = join(dir, 'victim.txt')
    writeFileSync(victim, 'untouched\n')
    symlinkSync(victim, target)
    const r = await cli(['customers', 'export', '--output', target])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n')
    expect(lstatSync(target).isSymbolicLink()).toBe(false)
  })

  it('--escape-formulas prefixes formula cells with a quote; without it the CSV imports back exactly', async () => {
    const create = await cli([
      'customers',
      'create',
      '--email',
      'formula@h.io',
      '--name',
      '=HYPERLINK("http://evil","x")',
      '--no-send-invite',
      '--json',
    ])
    expect(create.code, create.stderr).toBe(0)
    const escaped = await cli(['customers', 'export', '--format', 'csv', '--search', 'formula@h.io', '--escape-formulas'])
    expect(escaped.code, escaped.stderr).toBe(0)
    expect(escaped.stdout).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`)
    const plain = await cli(['customers', 'export', '--format', 'csv', '--search', 'formula@h.io'])
    expect(plain.stdout).toContain(`"=HYPERLINK(""http://evil"",""x"")"`)
    expect(plain.stdout).not.toContain(`'=`)
    const jsonl = await cli(['customers', 'export', '--escape-formulas'])
    expect(jsonl.code).toBe(2)
    expect(jsonl.stderr).toContain('--escape-formulas applies to CSV only')
  })

  it('the summary line groups the count as the progress bar does', async () => {
    const target = join(mkdtempSync(join(files, 'out-')), 'all.jsonl')
    const r = await cli(['customers', 'export', '--output', target])
    expect(r.code, r.stderr).toBe(0)
    const count = readFileSync(target, 'utf8').trimEnd().split('\n').length
    expect(r.stderr).toContain(`Exported ${count.toLocaleString('en')} customer${count === 1 ? '' : 's'} to ${target}.`)
  })
})
