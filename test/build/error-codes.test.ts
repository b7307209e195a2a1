/**
 * The error codes are declared once (src/errors.ts ERROR_CODES): the shipped JSON Schema and docs/errors.md are
 * written from them by `npm run generate` (scripts/error-codes.ts), and each code has one exit code.
 */
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'

import {errorSchema, errorTable, SCHEMA_PATH, TABLE_PATH} from '../../scripts/error-codes.js'
import {ERROR_CODES, EXIT} from '../../src/errors.js'

describe('error codes', () => {
  it('schemas/error.schema.json and docs/errors.md are what npm run generate writes', () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8'), 'run npm run generate').toBe(errorSchema())
    expect(readFileSync(TABLE_PATH, 'utf8'), 'run npm run generate').toBe(errorTable())
  })

  it('names are stable snake_case words, each with an exit code of the contract', () => {
    const exits = new Set<number>(Object.values(EXIT))
    for (const [code, c] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/)
      expect(exits.has(c.exit), code).toBe(true)
    }
  })
})
