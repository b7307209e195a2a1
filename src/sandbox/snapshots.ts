/**
 * Named snapshots of the whole state (`sandbox snapshot save|restore|list|delete`): JSON files `NAME.json` in a
 * directory (mode 0600, written through src/domain/files.ts), or in memory for a sandbox without one. Key pairs
 * are not part of a restore: the sandbox keeps its own, which profiles hold.
 */
import {mkdir, readdir, rm, stat} from 'node:fs/promises'
import {join} from 'node:path'

import {writeFileAtomic} from '../domain/files.js'
import {readOwnFile} from '../domain/own-file.js'
import {HttpError, type Router, validationError} from './http.js'
import {checkSnapshot, DATA_MAX_BYTES} from './persistence.js'
import type {Snapshot, Store} from './record-store.js'
import type {SnapshotInfo} from '../domain/sandbox-control.js'
import {CONTROL_PREFIX} from './decisions.js'

export type {SnapshotInfo}

const NAME = /^[A-Za-z0-9][\w.-]{0,63}$/

export function checkSnapshotName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name) || name.endsWith('.json'))
    throw validationError({name: ['must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit']})
  return name
}

/** The refunds of a snapshot's orders (each order keeps its own). */
function refundsIn(orders: ReadonlyArray<{refunds?: unknown}>): number {
  return orders.reduce((n, o) => n + (Array.isArray(o.refunds) ? o.refunds.length : 0), 0)
}

export class SnapshotShelf {
  private readonly memory = new Map<string, {json: string; info: SnapshotInfo}>()

  constructor(private readonly dir: string | undefined) {}

  async save(name: string, snapshot: Snapshot, now: number): Promise<SnapshotInfo> {
    const info: SnapshotInfo = {
      customers: snapshot.customers.length,
      name,
      orders: snapshot.orders.length,
      refunds: refundsIn(snapshot.orders),
      saved_at: new Date(now).toISOString(),
      webhooks: snapshot.webhooks.length,
    }
    const json = JSON.stringify({...snapshot, saved_at: info.saved_at})
    if (!this.dir) this.memory.set(name, {info, json})
    else {
      await mkdir(this.dir, {mode: 0o700, recursive: true})
      await writeFileAtomic(join(this.dir, `${name}.json`), json)
    }
    return info
  }

  async load(name: string): Promise<Snapshot> {
    let json = this.memory.get(name)?.json
    if (this.dir) json = await readOwnFile(join(this.dir, `${name}.json`), DATA_MAX_BYTES).catch(() => undefined)
    if (json === undefined) throw new HttpError(404, `No snapshot is named ${JSON.stringify(name)}; see \`commerce sandbox snapshot list\``)
    try {
      return checkSnapshot(JSON.parse(json), `snapshot ${name}`)
    } catch (error) {
      throw new HttpError(422, `Snapshot ${name} cannot be read: ${(error as Error).message}`)
    }
  }

  /** Removes a snapshot; a 404 when none has the name. */
  async remove(name: string): Promise<void> {
    const known = this.dir ? (await this.list()).some((s) => s.name === name) : this.memory.delete(name)
    if (!known) throw new HttpError(404, `No snapshot is named ${JSON.stringify(name)}; see \`commerce sandbox snapshot list\``)
    if (this.dir) await rm(join(this.dir, `${name}.json`), {force: true})
  }

  async list(): Promise<SnapshotInfo[]> {
    if (!this.dir) return [...this.memory.values()].map((s) => s.info)
    const names = (await readdir(this.dir).catch(() => [] as string[])).filter((f) => f.endsWith('.json') && NAME.test(f.slice(0, -5)))
    const infos: SnapshotInfo[] = []
    for (const file of names.sort()) {
      try {
        const data = JSON.parse(await readOwnFile(join(this.dir, file), DATA_MAX_BYTES)) as Snapshot & {saved_at?: string}
        infos.push({
          customers: data.customers?.length ?? 0,
          name: file.slice(0, -5),
          orders: data.orders?.length ?? 0,
          refunds: refundsIn(data.orders ?? []),
          saved_at: data.saved_at ?? (await stat(join(this.dir, file))).mtime.toISOString(),
          webhooks: data.webhooks?.length ?? 0,
        })
      } catch {}
    }
    return infos
  }
}

/** The control routes of snapshots: save, list, restore, delete (CONTROL_ROUTES in control.ts describes them). */
export function snapshotRoutes(
  router: Router,
  store: Store,
  shelf: SnapshotShelf,
  now: () => number,
  /** Puts a loaded snapshot in place of the state (core.ts replaceState: pending deliveries of the old state go too). */
  restore: (snapshot: Snapshot, name: string) => void,
): void {
  router
    .add('POST', `${CONTROL_PREFIX}/snapshots`, async ({body}) => {
      const name = checkSnapshotName(((await body()) as {name?: unknown} | undefined)?.name)
      return {body: await shelf.save(name, store.snapshot(), now()), status: 201}
    })
    .add('GET', `${CONTROL_PREFIX}/snapshots`, async () => ({body: {data: await shelf.list()}, status: 200}))
    .add('POST', `${CONTROL_PREFIX}/snapshots/:name/restore`, async ({params}) => {
      const name = checkSnapshotName(params.name)
      restore(await shelf.load(name), name)
      return {body: {restored: params.name, counts: store.counts()}, status: 200}
    })
    .add('DELETE', `${CONTROL_PREFIX}/snapshots/:name`, async ({params}) => {
      await shelf.remove(checkSnapshotName(params.name))
      return {body: {deleted: params.name}, status: 200}
    })
}
