import {ConfigCommand} from '../../base/config-command.js'
import {outputFlags, pagerFlag, profileFlag} from '../../base/flags.js'

export default class ConfigProfiles extends ConfigCommand<typeof ConfigProfiles> {
  static effect = 'reads' as const
  static baseFlags = {...outputFlags, ...pagerFlag, ...profileFlag}
  static summary = `List the profiles.`
  static description = `"current" (a * on a terminal) marks the one a command would use now: --profile, else COMMERCE_PROFILE, else the one chosen with \`config use\`, else "default". "logged_in" means a key pair is stored (\`auth status\` checks it).`
  static examples = ['<%= config.bin %> config profiles', "<%= config.bin %> config profiles --json | jq -r '.[] | select(.current) | .name'"]

  async run(): Promise<void> {
    const profiles = await this.settings.profiles()
    // None: one line that says what to do (--json: the empty list), not an empty table and then that line.
    if (profiles.length === 0 && !this.output.json)
      return this.output.note('No profiles yet. Create one with `commerce auth login` or `commerce config set base_url URL`.')
    await this.output.list(
      profiles.map((p) => ({...p})),
      {
        columns: ['name', 'current', 'base_url', 'key_id', 'logged_in'],
        // In the table, the current profile is marked, as git marks the current branch; rows on a pipe and --json keep
        // the boolean.
        computed: this.io.tableOutput ? {current: (p) => (p.current ? '*' : '')} : undefined,
        middle: ['base_url'],
        important: ['base_url'],
        position: () => ({first: 1, shown: profiles.length, total: profiles.length}),
      },
    )
  }
}
