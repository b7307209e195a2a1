/**
 * `npm ci` of a fresh clone prints no warning of ours: every package in the lock file (dev ones included) runs on
 * the oldest Node.js our `engines` admits, and every package with an install script is approved in `allowScripts`.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import semver from 'semver'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

interface LockEntry {
  engines?: {node?: string} | string[]
  hasInstallScript?: boolean
  optional?: boolean
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {engines: {node: string}; allowScripts?: Record<string, boolean>}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {packages: Record<string, LockEntry>}
const floor = semver.minVersion(pkg.engines.node)!.version
const packages = Object.entries(lock.packages).filter(([path]) => path !== '')
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)

describe('the lock file against our engines', () => {
  it(`every package runs on Node.js ${floor}, the oldest our engines (${pkg.engines.node}) admit`, () => {
    const unfit = packages.flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
      return range && !semver.satisfies(floor, range) ? [`${nameOf(path)} needs node ${range}`] : []
    })
    expect(unfit, 'pin an older major of these, or raise engines.node in package.json (and the README)').toEqual([])
  })

  it("every install script is decided in allowScripts (approved, or denied as yarn's no-op preinstall is), so npm does not warn about it", () => {
    const unapproved = packages
      .filter(([path, entry]) => entry.hasInstallScript && pkg.allowScripts?.[nameOf(path)] === undefined)
      .map(([path]) => nameOf(path))
    expect(unapproved).toEqual([])
  })
})
