/**
 * `--errors-file`: the rows an import left out (invalid) or could not import (failed), with their line in the
 * input file and the reason. CSV when the file name ends in `.csv` (columns `line,status,reason`), else JSONL
 * (`{"line", "status", "reason"}`, plus `errors`, the field messages, for an invalid row).
 */
import type {Writable} from 'node:stream'

import type {FieldErrors} from '../domain/validate.js'
import {createRecordWriter, type RecordWriter} from './write.js'

export interface ErrorRow {
  line: number
  status: 'invalid' | 'failed'
  reason: string
  errors?: FieldErrors
}

export function errorsFileFormat(path: string): 'csv' | 'jsonl' {
  return path.toLowerCase().endsWith('.csv') ? 'csv' : 'jsonl'
}

export function createErrorsWriter(format: 'csv' | 'jsonl', out: Writable): {write(row: ErrorRow): Promise<void> | void; end(): Promise<void>} {
  const writer: RecordWriter = createRecordWriter(format, out, {columns: ['line', 'status', 'reason']})
  return {
    end: () => writer.end(),
    write(row) {
      const record: Record<string, unknown> = {line: row.line, status: row.status, reason: row.reason}
      if (format === 'jsonl' && row.errors) record.errors = row.errors
      return writer.write(record)
    },
  }
}
