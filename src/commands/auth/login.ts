import {Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {apiVersionFlag, shaped} from '../../base/flags.js'
import {checkBaseUrl} from '../../base/context.js'
import {SCOPES} from '../../domain/schema.js'
import {checkOneOf} from '../../domain/validate.js'
import {readAll} from '../../domain/files.js'
import {UsageError} from '../../errors.js'
import {needFlag, promptSecret, promptText} from '../../io/prompt.js'
import {keyringHint, login, sandboxLogin, STORAGES, type Storage} from '../../services/credentials.js'
import {sandboxNotRunning} from '../../services/sandbox/control-client.js'

export default class AuthLogin extends ApiCommand<typeof AuthLogin> {
  static effect = 'local' as const
  static operations: readonly OperationId[] = ['issueToken']
  static createsProfile = true
  static summary = `Log in with a key pair: issues a token to check it, then stores the pair and the token in the profile.`
  static description = `--storage keyring keeps the key secret in the OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux) instead of config.json; a keyring that fails or does not answer within 3 s means the file, with a warning.

On a terminal, prompts for what is missing (the secret masked). Without one, pass every value as a flag; --key-secret-stdin reads the secret from standard input so that it stays out of the process list.`
  static examples = [
    '<%= config.bin %> auth login --sandbox',
    '<%= config.bin %> auth login --base-url https://commerce.example.com --key-id key_123',
    '<%= config.bin %> auth login --base-url https://commerce.example.com --key-id key_123 --storage keyring',
    'printf %s "$KEY_SECRET" | <%= config.bin %> auth login --base-url "$URL" --key-id "$KEY_ID" --key-secret-stdin',
  ]
  static flags = {
    ...apiVersionFlag,
    // Asked for on a terminal when missing: required without one (commands --json says so).
    'key-id': shaped(Flags.string({description: 'Public half of the key pair.'}), {prompted: true}),
    'key-secret': shaped(
      Flags.string({
        description: 'Secret half of the key pair (prefer --key-secret-stdin or the prompt).',
        exclusive: ['key-secret-stdin'],
      }),
      {prompted: true},
    ),
    'key-secret-stdin': Flags.boolean({description: 'Read the key secret from standard input.'}),
    sandbox: Flags.boolean({
      description: 'Log in to the running local sandbox with its full-scope test key pair.',
      exclusive: ['key-id', 'key-secret', 'key-secret-stdin', 'base-url'],
    }),
    scopes: Flags.string({description: `Comma-separated scopes to request (${SCOPES.join(', ')}); default: all the key is entitled to.`}),
    storage: Flags.string({
      description: "Where to keep the key secret: the OS keyring, or config.json (mode 0600). Default: the profile's `storage` setting, else file.",
      options: [...STORAGES],
    }),
  }

  async run(): Promise<void> {
    const {flags} = this
    const scopes = flags.scopes
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    for (const s of scopes ?? []) {
      const problem = checkOneOf(s, SCOPES)
      if (problem) throw new UsageError(`--scopes: ${problem}`)
    }

    let baseUrl: string
    let keyId: string
    let keySecret: string
    let moneyUnit: string | undefined
    if (flags.sandbox) {
      const sandbox = sandboxLogin(this.ctx.env, SCOPES)
      if (!sandbox)
        throw sandboxNotRunning(undefined, 'Start one with `commerce sandbox start --detach`, then run `commerce auth login --sandbox` again.')
      ;({baseUrl, keyId, keySecret, moneyUnit} = sandbox)
    } else {
      const known = await this.ctx.knownBaseUrl()
      baseUrl = checkBaseUrl(known ?? (await this.ask('Base URL', '--base-url', false)))
      keyId = flags['key-id'] ?? (await this.ask('Key id', '--key-id', false))
      if (flags['key-secret-stdin']) keySecret = await readStdin(this.deps.stdin)
      else keySecret = flags['key-secret'] ?? (await this.ask('Key secret', '--key-secret or --key-secret-stdin', true))
      if (!keySecret) throw new UsageError('The key secret is empty.')
    }

    const {movedFrom, result, warning} = await login(this.ctx, {
      apiVersion: flags['api-version'],
      baseUrl,
      moneyUnit,
      pair: {keyId, keySecret, scopes},
      storage: flags.storage as Storage | undefined,
    })
    if (warning) this.io.warn(warning)
    this.output.success(`Logged in to ${result.base_url} as ${result.key_id} (profile "${result.profile}").`)
    if (movedFrom)
      this.output.note(`Profile "${result.profile}" was logged in at ${movedFrom} before: its credentials now go to ${result.base_url} only.`)
    this.output.note(
      result.storage === 'keyring'
        ? 'The key secret is in the OS keyring (service "commerce-cli"); config.json keeps only the key id.'
        : `The key secret is in ${this.ctx.store.path} (mode 0600).`,
    )
    const storageFlag = flags.storage as Storage | undefined
    const tip = await keyringHint(this.ctx, {interactive: this.io.canPrompt(), json: this.output.json, storage: result.storage, storageFlag})
    if (tip) this.output.note(tip)
    await this.output.record({...result})
  }

  private async ask(what: string, flag: string, secret: boolean): Promise<string> {
    if (!this.io.canPrompt()) throw needFlag(what, flag)
    return secret ? promptSecret(this.io, `${what}:`) : promptText(this.io, `${what}:`)
  }
}

async function readStdin(stdin: NodeJS.ReadStream): Promise<string> {
  if (stdin.isTTY)
    throw new UsageError('--key-secret-stdin reads the secret from a pipe, e.g. `printf %s "$SECRET" | commerce auth login ... --key-secret-stdin`.')
  return (await readAll(stdin)).toString('utf8').replace(/\r?\n$/, '')
}
