import {BaseCommand} from '../base/command.js'

export default class Version extends BaseCommand<typeof Version> {
  static effect = 'reads' as const
  static summary = `Print the CLI's version, as --version and -v do.`
  static description = `With --json: {"version", "platform", "arch", "node"}.`
  static examples = ['<%= config.bin %> version', '<%= config.bin %> version --json']

  async run(): Promise<void> {
    const {config, io} = this
    const info = {arch: config.arch, node: process.version, platform: config.platform, version: config.version}
    await this.output.result(info, () => io.out(config.userAgent))
  }
}
