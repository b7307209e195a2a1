/**
 * Session buses that misbehave, for the keyring's deadline: a unix socket that accepts a connection and then never
 * answers (a stuck gnome-keyring-daemon, a stale DBUS_SESSION_BUS_ADDRESS), one that closes every connection at
 * once, and one that answers garbage. The CLI reaches it through DBUS_SESSION_BUS_ADDRESS.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {type Server, type Socket, createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

export type BusMode = 'silent' | 'close' | 'garbage'

export interface FakeBus {
  address: string
  /** Connections accepted so far. */
  connections: number
  close(): Promise<void>
}

export async function startFakeBus(mode: BusMode): Promise<FakeBus> {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bus-'))
  const path = join(dir, 'bus')
  const sockets = new Set<Socket>()
  const bus: FakeBus = {address: `unix:path=${path}`, close: async () => {}, connections: 0}
  const server: Server = createServer((socket) => {
    bus.connections++
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    if (mode === 'close') socket.destroy()
    else if (mode === 'garbage') socket.on('data', () => socket.write('\u0000\u00ffREJECTED garbage\r\nnot a bus\r\n'))
    // silent: reads everything, answers nothing
    else socket.resume()
  })
  await new Promise<void>((resolve) => server.listen(path, resolve))
  bus.close = async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    rmSync(dir, {force: true, recursive: true})
  }
  return bus
}
