/**
 * `npm run generate` writes the OpenAPI document as a release artifact, `openapi.json` (the bytes `commerce api
 * --spec` prints): it ships in the npm package and beside the standalone builds. A document whose content changed
 * while its `info.version` (SANDBOX_API_VERSION in src/sandbox/openapi.ts) did not is refused, so that a client
 * generated from one release's document can tell it from the next. test/build/openapi-artifact.test.ts checks the
 * committed file against the document.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {openApiDocument, SANDBOX_API_VERSION} from '../src/sandbox/openapi.js'

/** The artifact (OPENAPI_ARTIFACT names another file: the test of the refusal). */
export const ARTIFACT = process.env.OPENAPI_ARTIFACT ?? join(import.meta.dirname, '..', 'openapi.json')

/** The artifact's text: the document as `commerce api --spec` prints it, two-space indented, a final newline. */
export function artifactText(): string {
  return `${JSON.stringify(openApiDocument(SANDBOX_API_VERSION), null, 2)}\n`
}

/** The document without its version: what a bump is about. */
export function content(text: string): string {
  const doc = JSON.parse(text) as {info: Record<string, unknown>}
  return JSON.stringify({...doc, info: {...doc.info, version: undefined}})
}

// Run as a script (npm run generate), not when a test imports its helpers.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const next = artifactText()
  const previous = existsSync(ARTIFACT) ? readFileSync(ARTIFACT, 'utf8') : undefined
  if (previous !== undefined && previous !== next) {
    const was = (JSON.parse(previous) as {info: {version: string}}).info.version
    if (content(previous) !== content(next) && was === SANDBOX_API_VERSION) {
      console.error(
        `openapi.json: the document changed, but its version is still ${was}: raise SANDBOX_API_VERSION in src/sandbox/openapi.ts, then run \`npm run generate\` again.`,
      )
      process.exit(1)
    }
  }
  writeFileSync(ARTIFACT, next)
}
