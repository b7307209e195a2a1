import {mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {inDoubt, LedgerCorruptError, LedgerLinkError, listRuns, RunLedger} from '../../src/config/ledger.js'
import {applySets, checkEntry, checkScenario, MAX_SCENARIO_DEPTH, parseScenario, resolveReferences, ScenarioError} from '../../src/domain/scenario.js'
import {UsageError} from '../../src/errors.js'
import {readScenario} from '../../src/services/sandbox/scenarios.js'

const fixtureChecks = {checkEvents: () => undefined, loopbackWebhooks: false, sandbox: false}

describe('the scenario format (one parser and validator for sandbox seed and fixtures run)', () => {
  it('parses entries in file order and refuses unknown kinds, bad and repeated names', () => {
    const entries = parseScenario({customers: {a: {email: 'a@x.io', name: 'A'}}, orders: {o: {customer_id: '${a.id}'}}})
    expect(entries.map((e) => `${e.kind}.${e.name}`)).toEqual(['customers.a', 'orders.o'])
    let error: unknown
    try {
      parseScenario({customers: {a: {}, 'b c': {}}, orders: {a: {}}, gadgets: {}})
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ScenarioError)
    expect(Object.keys((error as ScenarioError).errors).sort()).toEqual(['customers.b c', 'gadgets', 'orders.a'])
  })

  it('checks every field by the create rules, ids of earlier entries as ids, and references forward as errors', () => {
    const entries = parseScenario({
      customers: {a: {email: 'nope', name: 'A'}, b: {email: 'b@x.io', name: '${a.name} junior'}},
      orders: {o: {currency: 'XYZ', customer_id: '${a.id}', items: [{product_id: 1}], status: 'paid'}},
      refunds: {r: {order_id: '${later.id}'}},
    })
    const errors = checkScenario(entries, fixtureChecks)
    expect(Object.keys(errors).sort()).toEqual(['customers.a.email', 'orders.o.currency', 'orders.o.status', 'refunds.r.order_id'])
    expect(errors['orders.o.status'][0]).toContain('sandbox-only')
    expect(checkScenario(entries, {...fixtureChecks, sandbox: true})['orders.o.status']).toBeUndefined()
  })

  it('resolves any field of an earlier record: a whole reference keeps its type, a spliced one becomes text', () => {
    const records = {a: {email: 'a@x.io', id: 7, items: [{product_id: 3}]}}
    expect(resolveReferences({id: '${a.id}', note: 'for ${a.email}', p: '${a.items.0.product_id}'}, records, 'x')).toEqual({
      id: 7,
      note: 'for a@x.io',
      p: 3,
    })
    expect(() => resolveReferences('${a.phone}', records, 'orders.o.note')).toThrow(/orders\.o\.note.*a\.phone|does not have/)
  })

  it('--set NAME.FIELD=VALUE sets a field (JSON when it parses) on a copy; an unknown name or shape is a problem', () => {
    const doc = {customers: {a: {email: 'a@x.io', name: 'A'}}}
    const {problems, scenario} = applySets(doc, ['a.name=Ada', 'a.metadata.plan="pro"', 'a.send_invite=false', 'zed.name=x', 'broken'])
    expect(scenario).toEqual({customers: {a: {email: 'a@x.io', metadata: {plan: 'pro'}, name: 'Ada', send_invite: false}}})
    expect(doc.customers.a.name).toBe('A')
    expect(problems).toHaveLength(2)
  })
})

describe('the fixtures ledger', () => {
  it('is 0600, keeps what was created, and reads past a torn last line (a kill mid-write)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'))
    try {
      const header = {base_url: 'http://x', file: '/f', generation: 1, identity: 'a'.repeat(64), key_id: 'k', run: 'aaaaaaaaaaaa', started_at: 'now'}
      const ledger = RunLedger.create(join(dir, 'fixtures'), header)
      ledger.started('alice', 'customers', 1)
      ledger.created('alice', 'customers', {id: 4, name: 'A'}, {email: 'a@x.io'})
      ledger.started('first', 'orders', 2)
      ledger.close()
      writeFileSync(ledger.path, `${readFileSync(ledger.path, 'utf8')}{"entry":"first","id":`)
      const read = RunLedger.read(ledger.path)!
      expect(read.entries.get('alice')).toMatchObject({id: 4, started: true})
      expect(read.entries.get('first')).toMatchObject({started: true})
      expect(read.entries.get('first')!.id).toBeUndefined()
      read.cleaned('alice', 'deleted')
      read.close()
      expect(RunLedger.read(ledger.path)!.entries.get('alice')!.clean).toEqual({outcome: 'deleted', reason: undefined})
      expect(RunLedger.read(ledger.path)!.entries.get('alice')!.fingerprint).toEqual({email: 'a@x.io'})
      // The torn line was cut before the append: the file reads whole, line by line.
      expect(readFileSync(ledger.path, 'utf8')).not.toContain('"id":\n')
      expect(statSync(ledger.path).mode & 0o777).toBe(0o600)
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('is never written through a symbolic link: LedgerLinkError naming it, the link target untouched', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'))
    try {
      const header = {base_url: 'http://x', file: '/f', generation: 1, identity: 'd'.repeat(64), key_id: 'k', run: 'dddddddddddd', started_at: 'now'}
      mkdirSync(join(dir, 'fixtures'))
      writeFileSync(join(dir, 'target'), 'keep')
      symlinkSync(join(dir, 'target'), join(dir, 'fixtures', 'dddddddddddd.jsonl'))
      expect(() => RunLedger.create(join(dir, 'fixtures'), header)).toThrow(LedgerLinkError)
      expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('keep')
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('a refused create (4xx) is not in doubt; one sent and never answered is; a new attempt clears the refusal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'))
    try {
      const header = {base_url: 'http://x', file: '/f', generation: 1, identity: 'b'.repeat(64), key_id: 'k', run: 'bbbbbbbbbbbb', started_at: 'now'}
      const ledger = RunLedger.create(join(dir, 'fixtures'), header)
      ledger.started('carol', 'customers', 1)
      ledger.refusedBy('carol', 'customers', 422, 'email has already been taken')
      ledger.started('dave', 'customers', 2)
      ledger.close()
      const read = RunLedger.read(ledger.path)!
      expect(inDoubt(read.entries.get('carol'))).toBe(false)
      expect(read.entries.get('carol')!.refused).toEqual({reason: 'email has already been taken', status: 422})
      expect(inDoubt(read.entries.get('dave'))).toBe(true)
      read.started('carol', 'customers', 3)
      expect(inDoubt(read.entries.get('carol'))).toBe(true)
      read.close()
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('a ledger that cannot be read stops with its file and line, never skipped: header, middle line, unknown kind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'))
    try {
      const header = JSON.stringify({
        base_url: 'http://x',
        file: '/f',
        generation: 1,
        identity: 'c'.repeat(64),
        key_id: 'k',
        run: 'cccccccccccc',
        started_at: 'now',
      })
      const cases: Array<[string, number]> = [
        ['{"run": "x"\n', 1],
        [`garbage\n${header}\n`, 1],
        [`${header}\n{"entry":"a","kind":"customers","started":1}\n{oops\n{"entry":"a","id":3}\n`, 3],
        [`${header}\n{"entry":"a","kind":"dragons","started":1}\n`, 2],
      ]
      for (const [i, [text, line]] of cases.entries()) {
        const path = join(dir, `${i}.jsonl`)
        writeFileSync(path, text)
        expect(() => RunLedger.read(path)).toThrow(LedgerCorruptError)
        expect(() => RunLedger.read(path)).toThrow(new RegExp(`${path} cannot be read at line ${line}`))
        expect(() => listRuns(dir, 'http://x', 'k')).toThrow(LedgerCorruptError)
        rmSync(path)
      }
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })
})

describe('--set and the depth of a scenario file', () => {
  it('refuses __proto__, constructor and prototype anywhere in the path, and pollutes nothing', () => {
    const doc = {customers: {pp: {email: 'p@x.io', name: 'P'}}}
    for (const set of ['pp.__proto__.email=evil@x.io', 'pp.constructor.prototype.email=evil@x.io', '__proto__.email=x', 'pp.prototype=1']) {
      const {problems, scenario} = applySets(doc, [set])
      expect(problems, set).toEqual([expect.stringMatching(/(__proto__|constructor|prototype), which is never a field/)])
      expect(scenario).toEqual(doc)
    }
    expect(({} as Record<string, unknown>).email).toBeUndefined()
  })

  it('a file nested deeper than the limit is exit 2 naming it, at any depth (no stack overflow)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'))
    try {
      for (const depth of [MAX_SCENARIO_DEPTH - 3, 1000, 100_000]) {
        const body = `${'{"k":'.repeat(depth)}"x"${'}'.repeat(depth)}`
        const path = join(dir, `${depth}.json`)
        writeFileSync(path, `{"customers": {"a": {"email": "a@x.io", "name": "A", "metadata": ${body}}}}`)
        if (depth < MAX_SCENARIO_DEPTH) {
          expect(readScenario(path)).toBeTruthy()
          continue
        }
        let error: unknown
        try {
          readScenario(path)
        } catch (caught) {
          error = caught
        }
        expect(error).toBeInstanceOf(UsageError)
        expect((error as Error).message).toContain(`nests deeper than ${MAX_SCENARIO_DEPTH} levels`)
      }
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })
})

describe('what a refused entry says', () => {
  it("an order's status outside the sandbox: a whole sentence that says what to do", () => {
    const errors = checkEntry(
      'orders',
      {currency: 'USD', customer_id: 1, items: [{product_id: 1, quantity: 1}], status: 'paid'},
      {loopbackWebhooks: false, sandbox: false},
    )
    const [message] = errors.status
    expect(message).toMatch(/so fixtures cannot set it; leave it out, or seed a sandbox with `commerce sandbox seed`$/)
  })
})
