/**
 * `npm run lint` holds the OpenAPI document (src/sandbox/openapi.ts, as `commerce api --spec` prints it) to the
 * rulesets integrators run on it: Redocly's `recommended` and Spectral's `oas`, through their libraries (pinned in
 * package.json). Any error or warning of either fails the lint, each printed with where it is.
 */
import {createConfig, lintFromString} from '@redocly/openapi-core'
import spectralCore from '@stoplight/spectral-core'
import spectralParsers from '@stoplight/spectral-parsers'
import spectralRulesets from '@stoplight/spectral-rulesets'

import {openApiDocument, SANDBOX_API_VERSION} from '../src/sandbox/openapi.js'

const {Document, Spectral} = spectralCore
const {oas} = spectralRulesets
const {Json} = spectralParsers
const text = JSON.stringify(openApiDocument(SANDBOX_API_VERSION), null, 2)
const found: string[] = []

const redocly = await lintFromString({absoluteRef: 'openapi.json', config: await createConfig({extends: ['recommended']}), source: text})
for (const p of redocly) found.push(`redocly ${p.severity} ${p.ruleId}: ${p.message} (${p.location.map((l) => l.pointer).join(', ')})`)

const spectral = new Spectral()
spectral.setRuleset(oas as never)
const SEVERITY = ['error', 'warn', 'info', 'hint']
for (const d of await spectral.run(new Document(text, Json, 'openapi.json') as never))
  if (Number(d.severity) <= 1) found.push(`spectral ${SEVERITY[d.severity]} ${String(d.code)}: ${d.message} (#/${d.path.join('/')})`)

if (found.length > 0) {
  console.error(`The OpenAPI document breaks ${found.length} rule${found.length === 1 ? '' : 's'}:\n${found.join('\n')}`)
  process.exit(1)
}
console.log('OpenAPI document: Redocly recommended and Spectral oas: no error, no warning.')
