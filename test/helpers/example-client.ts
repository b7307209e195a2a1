/**
 * The examples of a client generated from the OpenAPI document (examples/typescript-client, examples/hey-api-client):
 * the folder type-checked with `tsc --strict` (its tsconfig.json), then its script run with tsx against a sandbox,
 * the sandbox's base URL and first key pair in its environment.
 */
import {execFileSync, spawn} from 'node:child_process'
import {createRequire} from 'node:module'
import {join} from 'node:path'

import type {TestSandbox} from './sandbox.js'

const require = createRequire(import.meta.url)

export async function checkAndRunExample(
  dir: string,
  script: string,
  sb: TestSandbox,
): Promise<{code: number | null; stdout: string; stderr: string}> {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {cwd: dir, stdio: 'pipe'})
  const env = {...process.env, COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_KEY_ID: sb.keys[0].key_id, COMMERCE_KEY_SECRET: sb.keys[0].key_secret}
  const child = spawn(process.execPath, ['--import', 'tsx', join(dir, script)], {cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return {code, stderr, stdout}
}
