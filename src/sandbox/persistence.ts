/**
 * The data file: the store's snapshot as JSON, written atomically (a temporary file in the same directory,
 * then rename), mode 0600 because it holds key secrets and signing secrets. Writes are debounced and
 * serialised; `flush()` writes now if anything changed.
 */
import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {dirname} from 'node:path'

import type {Snapshot} from './store.js'

export async function loadSnapshot(path: string): Promise<Snapshot | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`Cannot read the data file ${path}: ${(error as Error).message}`)
  }
  let data: Partial<Snapshot>
  try {
    data = JSON.parse(text) as Partial<Snapshot>
  } catch {
    throw new Error(`${path} is not valid JSON; move it away to start with a fresh sandbox`)
  }
  const valid =
    data?.version === 1 &&
    Array.isArray(data.keys) &&
    Array.isArray(data.customers) &&
    Array.isArray(data.orders) &&
    Array.isArray(data.webhooks) &&
    typeof data.next === 'object' &&
    typeof data.idempotency === 'object'
  if (!valid) throw new Error(`${path} is not a sandbox data file (version 1); move it away to start with a fresh sandbox`)
  return data as Snapshot
}

export class DataFile {
  private timer?: NodeJS.Timeout
  private dirty = false
  private writing: Promise<void> = Promise.resolve()

  constructor(
    private readonly path: string,
    private readonly debounceMs: number,
    private readonly snapshot: () => Snapshot,
    private readonly onError: (error: Error) => void,
  ) {}

  schedule(): void {
    this.dirty = true
    if (this.timer) return
    this.timer = setTimeout(() => void this.flush(), this.debounceMs)
    this.timer.unref()
  }

  /** Writes the current state now and fails loudly: a sandbox that cannot keep its data must not start. */
  async create(): Promise<void> {
    this.dirty = false
    await this.write(JSON.stringify(this.snapshot())).catch((error: Error) => {
      throw new Error(`Cannot write the data file ${this.path}: ${error.message}`)
    })
  }

  /** Writes the current state if it changed since the last write; resolves when it is on disk. */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.dirty) {
      this.dirty = false
      const json = JSON.stringify(this.snapshot())
      this.writing = this.writing.then(() => this.write(json)).catch((error: Error) => this.onError(error))
    }
    return this.writing
  }

  private async write(json: string): Promise<void> {
    await mkdir(dirname(this.path), {mode: 0o700, recursive: true})
    const tmp = `${this.path}.${process.pid}.tmp`
    await writeFile(tmp, json, {mode: 0o600})
    await rename(tmp, this.path)
  }
}
