/** How the update notice tells a copy to update (src/services/update-check.ts): each kind of install, a place named. */
import {describe, expect, it} from 'vitest'

import {releasesPage, updateCommand} from '../../src/services/update-check.js'

describe('the update notice’s instructions', () => {
  const repository = {type: 'git', url: 'git+https://github.com/commerce-cli/commerce-cli.git'}

  it('the standalone builds name where their releases are, from the repository package.json names', () => {
    expect(releasesPage(repository)).toBe('https://github.com/commerce-cli/commerce-cli/releases')
    expect(updateCommand('tarball', 'commerce-service-cli', repository)).toContain('from https://github.com/commerce-cli/commerce-cli/releases')
    expect(updateCommand('deb', 'commerce-service-cli', repository)).toMatch(
      /from https:\/\/github\.com\/commerce-cli\/commerce-cli\/releases, then: `sudo apt install/,
    )
    expect(updateCommand('npm', 'commerce-service-cli', repository)).toBe('npm install -g commerce-service-cli')
  })
})
