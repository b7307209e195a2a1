import {Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {CUSTOMER_FIELD_FLAGS, customerFieldFlags} from '../../base/customer-flags.js'
import {apiVersionFlag, dryRunFlag, fieldsFlag, shaped} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {checkEmail, checkName} from '../../domain/validate.js'
import {needFlag, promptText, promptYesNo} from '../../io/prompt.js'
import {createCustomer} from '../../services/customers.js'

export default class CustomersCreate extends ApiCommand<typeof CustomersCreate> {
  static operations: readonly OperationId[] = ['createCustomer']
  static summary = `Create a customer.`
  static description = `On a terminal, prompts for a missing email or name, and then asks whether to send the invitation email (unless --send-invite or --no-send-invite says).`
  static examples = [
    '<%= config.bin %> customers create --email ada@example.com --name "Ada Lovelace" --plan pro',
    '<%= config.bin %> customers create --email ci@example.com --name CI --no-send-invite --metadata source=ci --json',
  ]
  static fieldFlags = CUSTOMER_FIELD_FLAGS
  static flags = {
    ...dryRunFlag,
    ...fieldsFlag('customer'),
    ...apiVersionFlag,
    ...customerFieldFlags,
    // Asked for on a terminal when missing: required without one (commands --json says so).
    email: shaped({...customerFieldFlags.email}, {prompted: true}),
    name: shaped({...customerFieldFlags.name}, {prompted: true}),
    'send-invite': Flags.boolean({allowNo: true, description: 'Email an invitation (the default; --no-send-invite: do not).'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const prompted = flags.email === undefined || flags.name === undefined
    const email = flags.email ?? (await this.ask('Email', '--email', checkEmail))
    const name = flags.name ?? (await this.ask('Name', '--name', checkName))
    // An email to a real person: asked, when the command is already asking (the service's default is to send).
    const invite =
      flags['send-invite'] ??
      (prompted && this.io.canPrompt() ? await promptYesNo(this.io, `Email ${email} an invitation to the account?`, true) : true)
    const customer = await createCustomer(
      await this.ctx.client(),
      {email, metadata: flags.metadata, name, plan: flags.plan, send_invite: invite},
      await this.ctx.apiVersion(),
    )
    this.output.success(`Created customer ${customer.id}.`)
    // send_invite defaults to true: say what that does, and how not to, while it can still matter next time.
    if (invite && flags['send-invite'] === undefined && !prompted)
      this.output.note(`The service emails ${email} an invitation to the account (--no-send-invite: no email).`)
    await this.output.record(customer, RESOURCE_COLUMNS.customer)
  }

  private async ask(what: string, flag: string, check: (v: string) => string | undefined): Promise<string> {
    if (!this.io.canPrompt()) throw needFlag(what, flag)
    return promptText(this.io, `${what}:`, {validate: (v) => check(v) ?? true})
  }
}
