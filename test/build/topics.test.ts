/**
 * Every topic has its own line in help, from package.json's oclif.topics: without one, oclif shows the summary of
 * one of the topic's commands (`alias  Remove an alias.`, `plugins  List installed plugins.`).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, run} from '../helpers/cli.js'

const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const topics: Record<string, {description: string}> = pjson.oclif.topics
const manifests = [join(ROOT, 'oclif.manifest.json'), join(ROOT, 'node_modules', '@oclif', 'plugin-plugins', 'oclif.manifest.json')]
const ids = manifests.flatMap((m) => Object.keys(JSON.parse(readFileSync(m, 'utf8')).commands))
const topicIds = [
  ...new Set(
    ids.flatMap((id) =>
      id
        .split(':')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join(':')),
    ),
  ),
].sort()

describe('topics', () => {
  it('every topic of the CLI and its plugins has a description of its own', () => {
    expect(topicIds).toContain('plugins')
    expect(topicIds).toContain('sandbox:snapshot')
    for (const id of topicIds) expect(topics[id]?.description, id).toBeTruthy()
  })

  it.each([[[] as string[]], [['sandbox']], [['webhooks']]])('help %j shows each topic with that description', async (words) => {
    const r = await run([...words, '--help'])
    expect(r.code, r.stderr).toBe(0)
    // Help wraps long descriptions: compared with white space folded.
    const text = r.stdout.replaceAll(/\s+/g, ' ')
    const prefix = words.length === 0 ? '' : `${words.join(':')}:`
    const shown = topicIds.filter((id) => id.startsWith(prefix) && !id.slice(prefix.length).includes(':') && id !== words.join(':'))
    expect(shown.length).toBeGreaterThan(0)
    for (const id of shown) {
      const name = id.replaceAll(':', ' ')
      expect(text, id).toContain(` ${name} ${topics[id].description} `)
    }
  })
})
