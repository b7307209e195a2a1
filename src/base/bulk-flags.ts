/** Flags shared by the bulk commands (customers|orders export|import), declared once. */
import {Flags} from '@oclif/core'

import {EXPORT_FORMATS, IMPORT_FORMATS, MAX_CONCURRENCY} from '../domain/bulk-formats.js'

export const exportFlags = {
  concurrency: Flags.integer({default: 4, description: 'Pages fetched at once.', max: MAX_CONCURRENCY, min: 1}),
  format: Flags.option({description: 'Output format (default jsonl; json with --json and no --output).', options: EXPORT_FORMATS})(),
  'escape-formulas': Flags.boolean({
    description:
      "CSV for spreadsheets: prefix cells starting with = + - @ tab or CR with ' (formula injection; off so that export -> import round-trips).",
  }),
  output: Flags.string({char: 'o', description: 'Write to FILE (atomically, mode 0600) instead of stdout.'}),
}

export const importFlags = {
  concurrency: Flags.integer({default: 4, description: 'Requests in flight at once.', max: MAX_CONCURRENCY, min: 1}),
  'dry-run': Flags.boolean({description: 'Validate and report; send nothing.'}),
  'errors-file': Flags.string({
    description: 'Write the invalid and failed rows with their line and reason (CSV when FILE ends in .csv, else JSONL).',
  }),
  format: Flags.option({description: 'File format (default: from the extension).', options: IMPORT_FORMATS})(),
  'skip-invalid': Flags.boolean({description: 'Leave invalid rows out (reported) and import the others.'}),
}
