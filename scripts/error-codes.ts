/**
 * Writes what src/errors.ts ERROR_CODES declares, for readers outside the code (part of `npm run generate`):
 * - schemas/error.schema.json: the JSON Schema of the `--json` error document, shipped in the package;
 * - docs/errors.md: the table of codes, their exit codes and meanings.
 * test/build/error-codes.test.ts fails when either differs from what this would write.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {ERROR_CODES} from '../src/errors.js'

const root = join(fileURLToPath(import.meta.url), '..', '..')

export const SCHEMA_PATH = join(root, 'schemas', 'error.schema.json')
export const TABLE_PATH = join(root, 'docs', 'errors.md')

export function errorSchema(): string {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://github.com/commerce-cli/commerce-cli/schemas/error.schema.json',
    title: 'commerce CLI error document',
    description: 'What every commerce command prints on stdout under --json when it fails (docs/errors.md).',
    type: 'object',
    additionalProperties: false,
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'message', 'service_message', 'exit_code', 'status', 'hint', 'retry_after', 'errors'],
        properties: {
          code: {enum: Object.keys(ERROR_CODES), description: 'A stable name of the condition.'},
          message: {type: 'string', minLength: 1, description: "The CLI's own words."},
          service_message: {
            type: ['string', 'null'],
            description: "What the service's answer said in words, as it said it (data, not the CLI's words); null when none.",
          },
          exit_code: {enum: [...new Set(Object.values(ERROR_CODES).map((c) => c.exit))].sort((a, b) => a - b)},
          status: {type: ['integer', 'null'], description: 'The HTTP status when the error came from a response.'},
          hint: {type: ['string', 'null'], description: 'What to do next.'},
          retry_after: {type: ['integer', 'null'], minimum: 0, description: 'Seconds until the service said to try again.'},
          errors: {
            type: 'object',
            description: 'Field errors, keyed as the service names the fields; {} when none.',
            additionalProperties: {type: 'array', items: {type: 'string'}},
          },
        },
        // Each code with its one exit code.
        allOf: Object.entries(ERROR_CODES).map(([code, c]) => ({
          if: {properties: {code: {const: code}}},
          then: {properties: {exit_code: {const: c.exit}}},
        })),
      },
    },
  }
  return `${JSON.stringify(schema, null, 2)}\n`
}

export function errorTable(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, c]) => `| \`${code}\` | ${c.exit} | ${c.meaning} |`)
  return [
    '# Errors: the document, its codes and exit codes',
    '',
    '<!-- Written by `npm run generate` (scripts/error-codes.ts) from src/errors.ts ERROR_CODES: edit those. -->',
    '',
    'Under `--json`, a command that fails prints one JSON document on stdout, the same for every command, and says the',
    'message (and hint) on stderr too:',
    '',
    '```json',
    '{"error": {"code": "not_found", "message": "Not found (HTTP 404): GET /customers/42.", "service_message": "Customer 42 not found", "exit_code": 4, "status": 404, "hint": null, "retry_after": null, "errors": {}}}',
    '```',
    '',
    "Every key is always there: `message` is the CLI's own words, `service_message` what the service's answer said (as",
    'it said it: data, never the CLI speaking) or `null`, `status` the HTTP status or `null`, `hint` a sentence or `null`,',
    '`retry_after` seconds or `null`, `errors` the field errors keyed as the service names the fields (`{}` when none).',
    'The same document is the error of a tool of `commerce mcp`. The JSON Schema ships',
    'in the package as `schemas/error.schema.json`. Each code ends the command with its one exit code, whichever',
    'command meets the condition:',
    '',
    '| code | exit | meaning |',
    '| --- | --- | --- |',
    ...rows,
    '',
    'A signal ends any command at once with its code: SIGINT 130, SIGTERM 143, SIGHUP 129 (`webhooks listen` and',
    '`sandbox start` stop normally on them, exit 0). Commands that stream (`sandbox logs`, `webhooks listen`) print JSON',
    'Lines under `--json`: one document per line, the error document last when they fail.',
    '',
  ].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_PATH, errorSchema())
  writeFileSync(TABLE_PATH, errorTable())
}
