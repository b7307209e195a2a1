/** `fixtures clean` on a real terminal: it asks first, naming the counts; no keeps everything, yes cleans. */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {run} from '../helpers/cli.js'
import {startInTmux} from '../helpers/tmux.js'
import {useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()

describe('fixtures clean on a terminal', () => {
  it('asks naming the counts: no keeps the records (exit 1), yes deletes and refunds what it can (exit 0)', async () => {
    const file = join(fx.configDir, 'fixtures.json')
    writeFileSync(
      file,
      JSON.stringify({
        customers: {a: {email: 'tty-a@fixtures.example', name: 'A'}, b: {email: 'tty-b@fixtures.example', name: 'B'}},
        orders: {o: {currency: 'USD', customer_id: '${a.id}', items: [{product_id: 1}]}},
      }),
    )
    const made = await run(['fixtures', 'run', file, '--json'], {env: fx.env})
    expect(made.code, made.stderr).toBe(0)
    const {a} = made.json()
    const question = 'Clean run'
    const no = await startInTmux(['fixtures', 'clean'], {env: fx.env})
    await no.waitFor(/Clean run \w+: delete 2 customers and refund 1 order if paid or shipped\?/)
    expect(await no.answer(question, 'n')).toBe(1)
    expect((await fx.api('GET', `/api/v2/customers/${a.id}`)).status).toBe(200)

    const yes = await startInTmux(['fixtures', 'clean'], {env: fx.env, width: 80})
    expect(await yes.answer(question, 'y')).toBe(0)
    const screen = await yes.capture()
    // At 80 columns the reason an entry was left wraps onto more lines, whole, never cut with …
    expect(screen).not.toMatch(/left: .*…/)
    expect(screen.replace(/\s+/g, ' ')).toContain('left: pending: the API cannot cancel an order, and a pending one cannot be refunded')
    for (const line of screen.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(screen).toMatch(/2 undone, 1 left/)
    expect(screen).toContain('`commerce fixtures clean --recheck` refunds them')
    expect((await fx.api('GET', `/api/v2/customers/${a.id}`)).status).toBe(404)
  })
})
