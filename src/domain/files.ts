/**
 * Files the CLI and the sandbox create: one mechanism, so that none of them can be captured by a planted file.
 *
 * - The data goes first to a temp file in the destination's own directory, named with random bytes and opened
 *   exclusively without following links (O_CREAT | O_EXCL | O_NOFOLLOW): a symlink or a regular file planted
 *   at any name we might choose makes the open fail instead of being followed or reused.
 * - Mode 0600 unless told otherwise: what we write holds account data.
 * - The temp file is flushed (fsync) and then renamed over the destination: readers see the old file or the
 *   new one, never half of one. A failure removes the temp file.
 */
import {randomBytes} from 'node:crypto'
import {closeSync, constants, fsyncSync, lstatSync, openSync, readdirSync, renameSync, rmSync, writeSync} from 'node:fs'
import {open, rename, rm, type FileHandle} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'

import {isProcessAlive} from './processes.js'

export const PRIVATE_FILE_MODE = 0o600

/** open(2) flags of a file that must be new: never an existing file, never through a link. */
export const EXCLUSIVE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0)

export interface AtomicOptions {
  /** File mode of the new file (default 0600). */
  mode?: number
  /** Flush to disk before the rename (default true). */
  fsync?: boolean
}

/** A fresh temp name beside `path`: `.NAME.<pid>.<random>.tmp`. */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
}

/**
 * Temp files of this process not yet committed or discarded: removed on any exit (a signal's process.exit
 * included), so an interrupted command leaves none. Only SIGKILL can leave one, which the next write beside it
 * removes (`removeStaleTemps`).
 */
const openTemps = new Set<string>()
let exitHook = false
function track(temp: string): void {
  openTemps.add(temp)
  if (exitHook) return
  exitHook = true
  process.once('exit', () => {
    for (const t of openTemps) rmSync(t, {force: true})
  })
}

/**
 * Removes the temp files beside `path` left by processes that no longer exist (`.NAME.<pid>.<random>.tmp`, and the
 * sandbox's older `NAME.<pid>.tmp`; a regular file of this user): a `kill -9` mid-write leaves one, and nothing
 * else ever would.
 */
export function removeStaleTemps(path: string): void {
  const name = basename(path)
  let entries: string[]
  try {
    entries = readdirSync(dirname(path))
  } catch {
    return
  }
  for (const entry of entries) {
    const m = entry.startsWith(`.${name}.`)
      ? /^\.(?:.+)\.(\d+)\.[0-9a-f]+\.tmp$/.exec(entry)
      : entry.startsWith(`${name}.`)
        ? /^(?:.+)\.(\d+)\.tmp$/.exec(entry)
        : null
    if (!m || Number(m[1]) === process.pid || isProcessAlive(Number(m[1]))) continue
    const stale = join(dirname(path), entry)
    try {
      const st = lstatSync(stale)
      if (st.isFile() && (process.getuid === undefined || st.uid === process.getuid())) rmSync(stale, {force: true})
    } catch {
      // Gone meanwhile, or not ours to look at.
    }
  }
}

/** Opens a new temp file beside `path` exclusively (retrying another name if one is taken). */
async function openTemp(path: string, mode: number): Promise<{handle: FileHandle; temp: string}> {
  removeStaleTemps(path)
  for (let attempt = 0; ; attempt++) {
    const temp = tempPathFor(path)
    try {
      const handle = await open(temp, EXCLUSIVE_FLAGS, mode)
      track(temp)
      return {handle, temp}
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 4) throw error
    }
  }
}

function openTempSync(path: string, mode: number): {fd: number; temp: string} {
  removeStaleTemps(path)
  for (let attempt = 0; ; attempt++) {
    const temp = tempPathFor(path)
    try {
      const fd = openSync(temp, EXCLUSIVE_FLAGS, mode)
      track(temp)
      return {fd, temp}
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 4) throw error
    }
  }
}

/** Writes `data` to `path` atomically through an exclusive temp file (see the module comment). */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicOptions = {}): Promise<void> {
  const target = await createAtomicFile(path, options)
  try {
    await target.write(data)
    await target.commit()
  } catch (error) {
    await target.discard()
    throw error
  }
}

/** The synchronous twin of writeFileAtomic, for exit paths and small state files. */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, options: AtomicOptions = {}): void {
  const {fd, temp} = openTempSync(path, options.mode ?? PRIVATE_FILE_MODE)
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data
    let offset = 0
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset)
    if (options.fsync !== false) fsyncSync(fd)
    closeSync(fd)
    renameSync(temp, path)
    openTemps.delete(temp)
  } catch (error) {
    try {
      closeSync(fd)
    } catch {}
    rmSync(temp, {force: true})
    openTemps.delete(temp)
    throw error
  }
}

/** A file being written in pieces (an export): written to its temp file, then committed or discarded. */
export interface AtomicFile {
  readonly path: string
  readonly temp: string
  write(data: string | Uint8Array): Promise<void>
  /** Flushes, closes and renames the temp file over `path`. */
  commit(): Promise<void>
  /** Closes and removes the temp file; safe to call more than once and after commit. */
  discard(): Promise<void>
}

export async function createAtomicFile(path: string, options: AtomicOptions = {}): Promise<AtomicFile> {
  const {handle, temp} = await openTemp(path, options.mode ?? PRIVATE_FILE_MODE)
  let state: 'open' | 'closed' = 'open'
  return {
    path,
    temp,
    async write(data) {
      await handle.write(typeof data === 'string' ? Buffer.from(data) : data)
    },
    async commit() {
      if (options.fsync !== false) await handle.sync()
      await handle.close()
      state = 'closed'
      await rename(temp, path)
      openTemps.delete(temp)
    },
    async discard() {
      if (state === 'open') {
        state = 'closed'
        await handle.close().catch(() => {})
      }
      await rm(temp, {force: true})
      openTemps.delete(temp)
    },
  }
}

/**
 * A file-system error as a sentence about the path (`nope.csv does not exist`), for the messages people read;
 * the code (ENOENT...) is what a program checks, not what a person should have to decode.
 */
export function fileProblem(error: unknown, path: string, doing: 'read' | 'write' = 'read'): string {
  const code = (error as NodeJS.ErrnoException)?.code
  switch (code) {
    case 'ENOENT':
      return doing === 'read' ? `${path} does not exist` : `the folder of ${path} does not exist`
    case 'EACCES':
    case 'EPERM':
      return `${path} cannot be ${doing === 'read' ? 'read' : 'written'}: permission denied`
    case 'EISDIR':
      return `${path} is a directory, not a file`
    case 'ENOTDIR':
      return `${path} is not a path to a file (a part of it is not a directory)`
    case 'ELOOP':
      return `${path} is a loop of symbolic links`
    case 'EEXIST':
      return `${path} already exists`
    case 'EROFS':
      return `${path} is on a read-only file system`
    case 'ENOSPC':
      return `there is no space left to write ${path}`
    case 'ENAMETOOLONG':
      return `the name ${path} is too long`
    default:
      return `${path} cannot be ${doing === 'read' ? 'read' : 'written'} (${code ?? (error as Error)?.message ?? String(error)})`
  }
}

/** Everything a stream gives until it ends (standard input piped to a command), as one buffer. */
export async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array))
  return Buffer.concat(chunks)
}
