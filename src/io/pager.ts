/**
 * A long table on a terminal goes through a pager, as gh's does: `COMMERCE_PAGER`, else `PAGER`, else `less -FRX`
 * (quits at once when the text fits, keeps colour, leaves the text on the screen), run through the shell as git and gh
 * run it. Never on a pipe, never with --json, never with --no-pager or a pager set to "" or `cat`; only when the text
 * is taller than the terminal. A pager that cannot start or fails is no error: the text is written as it would be
 * without one (with a warning when the pager ran and failed).
 * Quitting the pager before the end is no error either.
 */
import {accessSync, constants} from 'node:fs'
import {delimiter, join} from 'node:path'

import {sanitize} from './sanitize.js'
import type {IOStreams} from './streams.js'

/** Whether `name` is a program on the PATH (the default pager is used only where it is installed). */
function onPath(name: string, path: string | undefined): boolean {
  return (path ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

/** The pager command to run for `lines` of text on this terminal, or undefined to write them directly. */
export function pagerFor(io: IOStreams, lines: number): string | undefined {
  if (io.pagerOff || io.json || !io.isStdoutTTY) return undefined
  if (lines < (io.stdout.rows || 24)) return undefined
  const chosen = io.env.COMMERCE_PAGER ?? io.env.PAGER
  const command = (chosen ?? (onPath('less', io.env.PATH) ? 'less -FRX' : '')).trim()
  return command === '' || command === 'cat' ? undefined : command
}

/** Writes `text` through `command`; false when the pager could not start or failed (then the caller writes it). */
export async function throughPager(io: IOStreams, command: string, text: string): Promise<boolean> {
  const {spawn} = await import('node:child_process')
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      env: {...io.env, LESS: io.env.LESS ?? 'FRX', LV: io.env.LV ?? '-c'},
      stdio: ['pipe', 'inherit', 'inherit'],
    })
    let started = true
    child.on('error', () => {
      started = false
      resolve(false)
    })
    // The person may quit before the end (q): the rest is not wanted, and a broken pipe is no error.
    child.stdin.on('error', () => {})
    child.stdin.end(text)
    // A pager that fails (127: not installed; 126: not a program; `false`; any other status but 0) showed nothing we
    // can count on: the text is written directly, saying why. (less quit before the end exits 0; a signal, null.)
    child.on('close', (code) => {
      if (!started) return
      if (code === 0 || code === null) return resolve(true)
      if (code !== 127) io.warn(`The pager (${sanitize(command, 'cell')}) failed with exit ${code}: the text follows here instead.`)
      resolve(false)
    })
  })
}

/**
 * Result text for a person (a table, a report), through the pager when it is taller than the terminal, else written
 * as it is: the one way a long result reaches a terminal, whichever command made it.
 */
export async function outPaged(io: IOStreams, text: string): Promise<void> {
  const body = text.endsWith('\n') ? text : `${text}\n`
  const pager = pagerFor(io, body.split('\n').length - 1)
  if (pager && (await throughPager(io, pager, body))) return
  io.out(body)
}
