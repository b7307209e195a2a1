/** The checks of `commerce doctor` that look at this machine only: the config directory, proxies, the sandbox. */
import {existsSync, statSync} from 'node:fs'

import {isProcessAlive} from '../domain/processes.js'
import {readSandboxState, sandboxStatePath} from '../config/sandbox-state.js'
import type {ConfigStore} from '../config/config-store.js'
import {readOwnFileSync} from '../domain/own-file.js'
import {displayUrl} from '../domain/url.js'
import {type Check, fail, ok, warn} from './doctor-check.js'

/**
 * The config directory and file: readable, private, and a file this CLI can read (`unreadable`: why not, as every
 * command would say it, file and key named). Said first, so that the checks that need the file point here.
 */
export function configCheck(store: ConfigStore, unreadable?: {message: string; hint?: string}): Check {
  const mode = (path: string) => statSync(path).mode & 0o777
  if (!existsSync(store.dir)) return ok('config', `${store.dir} (not created yet: the first login creates it, 0700)`)
  if (unreadable) return fail('config', unreadable.message, unreadable.hint ?? `Fix or remove ${store.path}.`)
  try {
    const dirMode = mode(store.dir)
    const fileMode = existsSync(store.path) ? mode(store.path) : undefined
    const loose = [
      dirMode & 0o077 ? `${store.dir} is ${dirMode.toString(8)}` : '',
      fileMode !== undefined && fileMode & 0o077 ? `${store.path} is ${fileMode.toString(8)}` : '',
    ]
      .filter(Boolean)
      .join(', ')
    if (loose) return warn('config', `others can read the config: ${loose}`, `chmod 700 ${store.dir} && chmod 600 ${store.path}`)
    return ok('config', `${store.path} (${fileMode === undefined ? 'no file yet' : '0600'}, directory 0700)`)
  } catch (error) {
    return fail(
      'config',
      `cannot read ${store.dir}: ${(error as Error).message}`,
      `Check the permissions of ${store.dir}, or set COMMERCE_CONFIG_DIR.`,
    )
  }
}

export function proxyCheck(env: NodeJS.ProcessEnv): Check {
  const names = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']
  const set = names.filter((n) => env[n])
  const ca = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE'].filter((n) => env[n])
  const proxies = set.map((n) => `${n}=${n.toLowerCase().startsWith('no_') ? env[n] : displayUrl(env[n]!)}`)
  const bundle = ca.length > 0 ? ca.map((n) => `${n}=${env[n]}`).join(', ') : "Node's own CA bundle"
  const missing = ca.filter((n) => !existsSync(env[n]!))
  if (missing.length > 0) return fail('proxy', `${missing.join(', ')} names a file that does not exist`, `Fix or unset ${missing.join(' and ')}.`)
  return ok('proxy', `${proxies.length > 0 ? proxies.join(', ') : 'no proxy variables'}; CA: ${bundle}`)
}

/**
 * The local sandbox: running, recorded but gone, or none; and none running while the base URL in effect is on this
 * machine and does not answer (`loopbackDown`: a profile logged in to a sandbox that has stopped).
 */
export function sandboxCheck(env: NodeJS.ProcessEnv, loopbackDown?: string): Check {
  // Read as it is first: reading it through readSandboxState removes the record of a sandbox that is gone.
  let recorded: {base_url?: unknown; pid?: unknown} | undefined
  try {
    recorded = JSON.parse(readOwnFileSync(sandboxStatePath(env), 256 * 1024)) as typeof recorded
  } catch {}
  const state = readSandboxState(env)
  if (state) return ok('sandbox', `running at ${state.base_url} (pid ${state.pid})`)
  if (recorded && Number.isInteger(recorded.pid) && !isProcessAlive(recorded.pid as number))
    return warn(
      'sandbox',
      `the sandbox recorded at ${String(recorded.base_url)} (pid ${String(recorded.pid)}) no longer runs`,
      '`commerce sandbox start --detach`',
    )
  if (loopbackDown)
    return warn(
      'sandbox',
      `no local sandbox runs, and the base URL ${displayUrl(loopbackDown)} is on this machine and does not answer`,
      '`commerce sandbox start --detach`, then `commerce auth login --sandbox` (its port may differ)',
    )
  return ok('sandbox', 'no local sandbox recorded (`commerce sandbox start --detach` runs one)')
}
