/**
 * Files of our own in the config directory (state, logs, the inbox, caches, the sandbox's data): opened by these
 * helpers only, so that a name planted there cannot redirect what we read or write. Never through a symbolic link
 * (O_NOFOLLOW: the open fails with ELOOP), never blocking on a FIFO (O_NONBLOCK: a FIFO opens at once and is then
 * refused, as is a device or a socket), and read only up to a bound (a huge file cannot fill memory). Files we replace
 * whole are written by writeFileAtomic (files.ts), whose rename replaces whatever stood at the name.
 *
 * Its own module, without node:crypto: every command reads its config file through it (test/build/startup-modules).
 */
import {closeSync, constants, fstatSync, ftruncateSync, linkSync, openSync, readSync, rmSync, writeSync} from 'node:fs'
import {open, type FileHandle} from 'node:fs/promises'

const PRIVATE_FILE_MODE = 0o600

export class NotOwnFileError extends Error {
  readonly code = 'ENOTREG'
  constructor(
    readonly path: string,
    what = 'not a regular file',
  ) {
    super(`${path} is ${what}: commerce does not read or write through it (remove it, and it is made anew)`)
  }
}

/** ELOOP (O_NOFOLLOW met a link) said as what it is. */
function asOwn(error: unknown, path: string): unknown {
  return (error as NodeJS.ErrnoException)?.code === 'ELOOP' ? new NotOwnFileError(path, 'a symbolic link') : error
}

/**
 * A regular file, and, to be written, one with no other name: a hard link planted at our name (`ln ~/notes.txt
 * sandbox.log`) would have us truncate or append to the file it names.
 */
function checkOwn(stat: {isFile(): boolean; nlink: number}, path: string, mode: OwnFileMode): void {
  if (!stat.isFile()) throw new NotOwnFileError(path)
  if (mode !== 'read' && stat.nlink > 1) throw new NotOwnFileError(path, `a hard link (the file has ${stat.nlink} names)`)
}

export class FileTooLargeError extends Error {
  readonly code = 'EFBIG'
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super(`${path} is larger than the ${maxBytes} bytes commerce reads of it`)
  }
}

const OWN_FLAGS = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/** open(2) flags: read only; append (created 0600 when missing); read and append. */
export type OwnFileMode = 'read' | 'append' | 'read-append' | 'write'
const MODE_FLAGS: Record<OwnFileMode, number> = {
  append: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
  read: constants.O_RDONLY,
  'read-append': constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
  write: constants.O_WRONLY | constants.O_CREAT,
}

/**
 * Opens a file of ours (see NotOwnFileError): a descriptor of a regular file, or an error (ENOENT, ELOOP for a link,
 * NotOwnFileError for a FIFO, socket or device). `truncate` empties it after the check, never before.
 */
export function openOwnFileSync(path: string, mode: OwnFileMode, options: {truncate?: boolean} = {}): number {
  let fd: number
  try {
    fd = openSync(path, MODE_FLAGS[mode] | OWN_FLAGS, PRIVATE_FILE_MODE)
  } catch (error) {
    throw asOwn(error, path)
  }
  try {
    checkOwn(fstatSync(fd), path, mode)
    if (options.truncate) ftruncateSync(fd, 0)
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** The async twin of openOwnFileSync. */
export async function openOwnFile(path: string, mode: OwnFileMode): Promise<FileHandle> {
  const handle = await open(path, MODE_FLAGS[mode] | OWN_FLAGS, PRIVATE_FILE_MODE).catch((error: unknown) => {
    throw asOwn(error, path)
  })
  try {
    checkOwn(await handle.stat(), path, mode)
    return handle
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
}

/** A file of ours read whole, up to `maxBytes` (FileTooLargeError past it). */
export function readOwnFileSync(path: string, maxBytes: number): string {
  const fd = openOwnFileSync(path, 'read')
  try {
    const buffer = Buffer.alloc(Math.min(maxBytes, fstatSync(fd).size) + 1)
    let length = 0
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0;) length += n
    if (length > maxBytes) throw new FileTooLargeError(path, maxBytes)
    return buffer.subarray(0, length).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** The async twin of readOwnFileSync. */
export async function readOwnFile(path: string, maxBytes: number): Promise<string> {
  const handle = await openOwnFile(path, 'read')
  try {
    const {size} = await handle.stat()
    if (size > maxBytes) throw new FileTooLargeError(path, maxBytes)
    const buffer = Buffer.alloc(size + 1)
    let length = 0
    for (let n; length < buffer.length && (n = (await handle.read(buffer, length, buffer.length - length, null)).bytesRead) > 0;) length += n
    if (length > maxBytes) throw new FileTooLargeError(path, maxBytes)
    return buffer.subarray(0, length).toString('utf8')
  } finally {
    await handle.close()
  }
}

/**
 * Creates `path` holding `text`, whole or not at all: written to a private file first (opened exclusively, so never
 * through a link), then linked to its name (atomic; link(2) never replaces a file). False when `path` exists already.
 * A reader racing the creation never meets the file empty (a lock naming no owner, a ledger without its header).
 */
export function createWhole(path: string, text: string): boolean {
  // Private to this attempt; node:crypto is not loaded for its name (start-up).
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2, 10)}`
  const fd = openSync(temp, 'wx', PRIVATE_FILE_MODE)
  try {
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
  try {
    linkSync(temp, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    rmSync(temp, {force: true})
  }
}
