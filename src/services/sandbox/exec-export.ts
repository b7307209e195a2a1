/**
 * `sandbox exec --export-on-exit DIR`: the request log, the webhook deliveries and the final records, for a job's
 * artifacts. DIR is checked before COMMAND runs (made when missing; a link, a file or a directory that cannot be
 * written is exit 2 and COMMAND never runs). Each file is written as every file of ours is (domain/files.ts): an
 * exclusive 0600 temp file beside it, renamed over the name, so a link planted in DIR is replaced, never written
 * through. The records' key secrets and signing secrets are masked, as the request log masks them.
 */
import {closeSync, lstatSync, mkdirSync, openSync, rmSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {redactBody} from '../../api/redact.js'
import {createAtomicFile, EXCLUSIVE_FLAGS, fileProblem, tempPathFor, writeFileAtomic} from '../../domain/files.js'
import {openOwnFile} from '../../domain/own-file.js'
import {option, phrase} from '../../domain/phrase.js'
import {UsageError} from '../../errors.js'
import type {Sandbox} from '../../sandbox/index.js'

/** DIR as an absolute path, ready to be written (exit 2 otherwise, before anything runs). */
export function checkExportDir(dir: string): string {
  const out = resolve(dir)
  const refuse = (why: string) => new UsageError(phrase`${option('exportOnExit')} ${JSON.stringify(dir)} ${why}: COMMAND was not run.`)
  let stat
  try {
    stat = lstatSync(out)
  } catch {
    try {
      mkdirSync(out, {mode: 0o700, recursive: true})
    } catch (error) {
      throw refuse(`cannot be made (${fileProblem(error, out, 'write')})`)
    }
    stat = lstatSync(out)
  }
  if (stat.isSymbolicLink()) throw refuse('is a symbolic link; name the directory itself')
  if (!stat.isDirectory()) throw refuse('is not a directory')
  // Written to, not asked about: access(2) says yes to root on a read-only mount's directory.
  const probe = tempPathFor(join(out, 'export-probe'))
  try {
    closeSync(openSync(probe, EXCLUSIVE_FLAGS, 0o600))
    rmSync(probe, {force: true})
  } catch (error) {
    throw refuse(`cannot be written (${fileProblem(error, out, 'write')})`)
  }
  return out
}

/** Copies our request log into DIR without holding it in memory. */
async function copyLog(log: string, to: string): Promise<void> {
  let source
  try {
    source = await openOwnFile(log, 'read')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  const target = await createAtomicFile(to)
  try {
    for await (const chunk of source.createReadStream()) await target.write(chunk as Buffer)
    await target.commit()
  } finally {
    await target.discard()
    await source.close().catch(() => {})
  }
}

/** Writes the three files into `out` (checked by checkExportDir). */
export async function writeExport(out: string, sandbox: Sandbox, log: string): Promise<void> {
  await copyLog(log, join(out, 'requests.jsonl'))
  await writeFileAtomic(join(out, 'deliveries.json'), `${JSON.stringify(JSON.parse(redactBody(JSON.stringify(sandbox.deliveries()))), null, 2)}\n`)
  await writeFileAtomic(join(out, 'state.json'), `${JSON.stringify(JSON.parse(redactBody(JSON.stringify(sandbox.snapshot()))), null, 2)}\n`)
}
