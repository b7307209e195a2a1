/**
 * Prompts, on stderr (stdout stays clean for results). Callers check `io.canPrompt()` first; asking without a
 * terminal is a usage error that names the flag to pass instead (`needFlag`).
 */
import {CliError, DeclinedError, EXIT, UsageError} from '../errors.js'
import type {IOStreams} from './streams.js'

async function inquirer() {
  return import('@inquirer/prompts')
}

function context(io: IOStreams) {
  return {input: io.stdin, output: io.stderr}
}

/** Ctrl-C at a prompt: exit 130 like any interrupt. */
function interrupted(error: unknown): never {
  if (error instanceof Error && error.name === 'ExitPromptError') throw new CliError('Interrupted.', {exitCode: EXIT.interrupted})
  throw error
}

export function needFlag(what: string, flag: string): UsageError {
  return new UsageError(`${what} is required: pass ${flag} (no prompt without an interactive terminal, or when CI is set).`)
}

export async function promptText(io: IOStreams, message: string, options: {validate?: (v: string) => string | true} = {}): Promise<string> {
  const {input} = await inquirer()
  return input({message, required: true, validate: options.validate}, context(io)).catch(interrupted)
}

/** A secret: typed characters are masked. */
export async function promptSecret(io: IOStreams, message: string): Promise<string> {
  const {password} = await inquirer()
  return password({mask: '*', message, validate: (v) => (v.length > 0 ? true : 'Required')}, context(io)).catch(interrupted)
}

/**
 * Confirmation before a destructive action: `--yes` skips it; without a terminal (or with CI set) `--yes` is
 * required (exit 2); answering no is exit 1 with nothing changed.
 */
export async function confirmOrThrow(io: IOStreams, message: string, yes: boolean): Promise<void> {
  if (yes) return
  if (!io.canPrompt()) throw needFlag('Confirmation', '--yes')
  const {confirm} = await inquirer()
  const ok = await confirm({default: false, message}, context(io)).catch(interrupted)
  if (!ok) throw new DeclinedError()
}
