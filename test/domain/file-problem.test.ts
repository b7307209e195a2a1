/** File-system errors become sentences about the path (src/domain/files.ts fileProblem), never a bare code. */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {fileProblem} from '../../src/domain/files.js'

const dir = mkdtempSync(join(tmpdir(), 'commerce-fileproblem-'))
afterAll(() => rmSync(dir, {force: true, recursive: true}))

const failure = async (work: () => Promise<unknown>) =>
  work().then(
    () => expect.unreachable('it worked'),
    (error: unknown) => error,
  )

describe('fileProblem', () => {
  it('names the path and what is wrong with it, for the errors people meet', async () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, 'x')
    expect(fileProblem(await failure(() => readFile(join(dir, 'nope.csv'))), 'nope.csv')).toBe('nope.csv does not exist')
    expect(fileProblem(await failure(() => readFile(dir)), dir)).toBe(`${dir} is a directory, not a file`)
    expect(fileProblem(await failure(() => readFile(join(file, 'below'))), 'a-file/below')).toBe(
      'a-file/below is not a path to a file (a part of it is not a directory)',
    )
    expect(fileProblem(await failure(() => writeFile(join(dir, 'no', 'x.csv'), '')), 'no/x.csv', 'write')).toBe(
      'the folder of no/x.csv does not exist',
    )
    expect(fileProblem(Object.assign(new Error('x'), {code: 'EACCES'}), 'secret.txt')).toBe('secret.txt cannot be read: permission denied')
    expect(fileProblem(Object.assign(new Error('odd'), {code: 'EIO'}), 'f')).toBe('f cannot be read (EIO)')
  })
})
