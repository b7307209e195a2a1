/**
 * The first pass of an import: read every row, validate it, hash the file. Nothing is kept but the count of
 * valid rows and the invalid ones, so memory stays flat for any size of file; the send pass (`rows()`)
 * reads the file again and yields the valid rows, after checking that the file has not changed meanwhile.
 */
import {createHash} from 'node:crypto'
import {stat} from 'node:fs/promises'
import {resolve} from 'node:path'

import {type ImportFormat, readRows} from './read.js'
import {checkHeader, type ImportKind, type ImportRow, type Invitations, RowChecker, type RowError, rowError} from './rows.js'

export interface ValidateFileOptions {
  file: string
  kind: ImportKind
  format: ImportFormat
  /** Customers: send_invite for the rows that leave it unset (undefined: left to the service, which invites). */
  sendInvite?: boolean
  /** Sees each invalid row as it is found; when given, `invalid` stays empty (for files with very many). */
  onInvalid?: (error: RowError) => void
}

export interface ValidatedFile {
  /** Absolute path. */
  file: string
  kind: ImportKind
  format: ImportFormat
  /** SHA-256 of the file's bytes, hex. */
  sha256: string
  valid: number
  invalidCount: number
  invalid: RowError[]
  /** Customers: valid rows that will email an invitation, and how many of them leave send_invite unset. */
  invitations: Invitations
  /** Fields the rows carry that the service sets (not part of the create body): not sent, named in the summary. */
  ignoredFields: string[]
  /** Valid or not, rows whose status the create body cannot carry (archived customers, paid orders). */
  statusNotCarried: number
  /** A fatal error (unreadable CSV, bad header): rows after it were not read, so no import may go on. */
  fatal?: RowError
  /** The send pass: the valid rows, in file order. Throws when the file changed since validation. */
  rows(): AsyncGenerator<ImportRow>
}

export class FileChangedError extends Error {
  constructor(file: string) {
    super(`${file} changed while it was being imported; run the import again.`)
    this.name = 'FileChangedError'
  }
}

export async function validateFile(options: ValidateFileOptions): Promise<ValidatedFile> {
  const file = resolve(options.file)
  const before = await stat(file)
  const hash = createHash('sha256')
  // Rows are mapped only to validate them; the order keys need the file's hash, known only at the end.
  const checker = new RowChecker(options.kind, options.format, '', options.sendInvite)
  const invalid: RowError[] = []
  let valid = 0
  let invalidCount = 0
  let fatal: RowError | undefined
  const reader = readRows(file, {
    checkHeader: (columns) => checkHeader(options.kind, columns),
    format: options.format,
    onBytes: (chunk) => hash.update(chunk),
  })
  for await (const read of reader) {
    let error: RowError | undefined
    if ('error' in read) error = rowError(read.line, {row: [read.error]}, read.fatal)
    else {
      const checked = checker.check(read.line, read.record)
      if ('row' in checked) valid++
      else error = checked.error
    }
    if (!error) continue
    invalidCount++
    if (error.fatal) fatal = error
    if (options.onInvalid) options.onInvalid(error)
    else invalid.push(error)
  }
  const sha256 = hash.digest('hex')
  const {format, kind} = options
  return {
    fatal,
    file,
    format,
    invalid,
    invalidCount,
    ignoredFields: [...checker.ignored],
    statusNotCarried: checker.statusNotCarried,
    invitations: checker.invitations,
    kind,
    rows: () => sendPass(file, kind, format, sha256, before, options.sendInvite),
    sha256,
    valid,
  }
}

async function* sendPass(
  file: string,
  kind: ImportKind,
  format: ImportFormat,
  sha256: string,
  before: {size: number; mtimeMs: number},
  sendInvite: boolean | undefined,
): AsyncGenerator<ImportRow> {
  const now = await stat(file)
  if (now.size !== before.size || now.mtimeMs !== before.mtimeMs) throw new FileChangedError(file)
  const checker = new RowChecker(kind, format, sha256, sendInvite)
  for await (const read of readRows(file, {checkHeader: (columns) => checkHeader(kind, columns), format})) {
    if ('error' in read) {
      if (read.fatal) return
      continue
    }
    const checked = checker.check(read.line, read.record)
    if ('row' in checked) yield checked.row
  }
}
