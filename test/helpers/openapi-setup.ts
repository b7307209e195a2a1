/**
 * In every test file (vitest setupFiles): an answer of an in-process sandbox that breaks the OpenAPI document
 * (test/helpers/openapi-check.ts) fails the test during which it was given (or the file, for one given in a hook).
 */
import {afterAll, afterEach} from 'vitest'

import {takeViolations} from './openapi-check.js'

function check(): void {
  const found = takeViolations()
  if (found.length > 0) throw new Error(`The sandbox answered against its OpenAPI document (src/sandbox/openapi.ts):\n- ${found.join('\n- ')}`)
}

afterEach(check)
afterAll(check)
