/** `auth login` on a real terminal: prompts for what is missing, the secret never echoed. */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {startInTmux} from '../helpers/tmux.js'
import {useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()

describe('auth login on a TTY', () => {
  it('prompts for the key id, then the secret, masked; logs in and stores the key id', async () => {
    const {key_id: keyId, key_secret: secret} = fx.sb.keys[0]
    const term = await startInTmux(['auth', 'login', '--base-url', fx.sb.baseUrl], {env: {COMMERCE_CONFIG_DIR: fx.configDir}})
    await term.waitFor('Key id:')
    expect(await term.capture()).not.toContain('Key secret')
    await term.reply(keyId)
    await term.waitFor('Key secret:')
    await term.type(secret)
    // Every character typed is shown as a '*' (the mask), never as itself.
    const typed = await term.waitFor('*'.repeat(secret.length))
    expect(typed).not.toContain(secret)
    await term.sendKeys('Enter')

    expect(await term.waitForExit()).toBe(0)
    const screen = await term.capture()
    expect(screen).toContain(`Logged in to ${fx.sb.baseUrl} as ${keyId}`)
    expect(screen).not.toContain(secret)
    expect(screen).not.toContain(secret.slice(-12))

    const config = JSON.parse(readFileSync(join(fx.configDir, 'config.json'), 'utf8'))
    const profiles = Object.values<{key_id?: string; base_url?: string}>(config.profiles ?? {})
    expect(profiles.find((p) => p.key_id === keyId)?.base_url).toBe(fx.sb.baseUrl)
  })

  it('a rejected key pair typed at the prompts: exit 3, nothing stored, the secret not echoed', async () => {
    const {key_id: keyId} = fx.sb.keys[1]
    const wrong = 'sbx_secret_not_the_right_one_at_all'
    const term = await startInTmux(['auth', 'login', '--base-url', fx.sb.baseUrl, '--profile', 'rejected'], {
      env: {COMMERCE_CONFIG_DIR: fx.configDir},
    })
    await term.waitFor('Key id:')
    await term.reply(keyId)
    await term.waitFor('Key secret:')
    await term.reply(wrong)
    expect(await term.waitForExit()).toBe(3)
    expect(await term.capture()).not.toContain(wrong)
    // Nothing stored: no config file at all, or one without the pair.
    const path = join(fx.configDir, 'config.json')
    const config = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {}
    expect(config.profiles?.rejected?.key_id).toBeUndefined()
  })
})
