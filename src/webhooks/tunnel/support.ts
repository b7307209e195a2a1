/** Small helpers the tunnel providers share: PATH lookup, a free loopback port, a JSON GET on loopback. */
import {accessSync, constants, statSync} from 'node:fs'
import {get} from 'node:http'
import {createServer, type AddressInfo} from 'node:net'
import {delimiter, join} from 'node:path'

/** The first executable file named `name` on the PATH of `env` (with PATHEXT on Windows). */
export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const extensions = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : ['']
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    for (const ext of extensions) {
      const candidate = join(dir, name + ext)
      try {
        if (!statSync(candidate).isFile()) continue
        accessSync(candidate, constants.X_OK)
        return candidate
      } catch {
        // not there, or not executable: keep looking
      }
    }
  }
  return undefined
}

/** A port free on 127.0.0.1 right now (another process could still take it before it is used). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** GET a small JSON document; undefined on any failure (not up yet, refused, not JSON). */
export function getJson(url: string, timeoutMs = 1000): Promise<unknown> {
  return new Promise((resolve) => {
    const req = get(url, {agent: false, timeout: timeoutMs}, (res) => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > 256 * 1024) req.destroy()
        else chunks.push(chunk)
      })
      res.on('end', () => {
        if (res.statusCode !== 200) return resolve(undefined)
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
        } catch {
          resolve(undefined)
        }
      })
      res.on('error', () => resolve(undefined))
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(undefined))
  })
}
