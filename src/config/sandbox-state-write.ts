/** Writes the sandbox state file (config/sandbox-state.ts reads it): `sandbox start` and `sandbox exec`. */
import {mkdirSync} from 'node:fs'
import {dirname} from 'node:path'

import {writeFileAtomicSync} from '../domain/files.js'
import {type SandboxState, sandboxStatePath} from './sandbox-state.js'

export function writeSandboxState(state: SandboxState, env: NodeJS.ProcessEnv = process.env): void {
  const path = sandboxStatePath(env)
  mkdirSync(dirname(path), {mode: 0o700, recursive: true})
  // Holds the key secrets: an exclusive 0600 temp file beside it, then rename (src/domain/files.ts).
  writeFileAtomicSync(path, JSON.stringify(state, null, 2) + '\n')
}
