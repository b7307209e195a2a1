/**
 * Prompts, on stderr (stdout stays clean for results). Callers check `io.canPrompt()` first; asking without a
 * terminal is a usage error that names the flag to pass instead (`needFlag`). Ctrl-C at a prompt rejects with
 * inquirer's ExitPromptError, which BaseCommand.catch turns into exit 130 (the one place it is handled).
 */
import {CliError, DeclinedError, UsageError} from '../errors.js'
import {sanitize} from './sanitize.js'
import {wrapWords} from './wrap.js'
import type {IOStreams} from './streams.js'

async function inquirer() {
  return import('@inquirer/prompts')
}

function context(io: IOStreams) {
  return {input: io.stdin, output: io.stderr}
}

/**
 * A question as the terminal shows it: questions name what a service or a file said (a customer's name, when a
 * snapshot was saved), so every prompt's message goes through the sanitizer here, whoever composed it; and so do the
 * choices a prompt lists and the error line a failing search shows (the prompt library writes them as given).
 * The sanitizer is idempotent: text a caller escaped already comes through unchanged.
 */
function asked(io: IOStreams, message: string): string {
  // Wrapped at words short of the width: the prompt's `? ` before it and its ` (Y/n)` or answer after it would
  // otherwise push the last word (a backticked command) over the edge, where the terminal splits it.
  return wrapWords(sanitize(message, 'terminal'), Math.max(20, io.width('stderr') - PROMPT_FRAME))
}

/** Cells a prompt adds to its question's line: `? ` before it, ` (Y/n)` or a short answer after it. */
const PROMPT_FRAME = 10

/** A choice's label, one line. */
function labelled(label: string): string {
  return sanitize(label, 'cell')
}

/** A failing source's error, as the prompt's error line shows it (its message escaped, the service's words as its; its kind kept). */
function shownError(io: IOStreams, error: unknown): Error {
  const text =
    error instanceof CliError && error.serviceMessage
      ? `The service said (HTTP ${error.status}): ${error.serviceMessage}`
      : error instanceof Error
        ? error.message
        : String(error)
  const safe = new Error(asked(io, text))
  if (error instanceof Error) safe.name = error.name
  return safe
}

export function needFlag(what: string, flag: string): UsageError {
  return new UsageError(`${what} is required: pass ${flag} (no prompt without an interactive terminal, or when CI is set).`)
}

export async function promptText(io: IOStreams, message: string, options: {validate?: (v: string) => string | true} = {}): Promise<string> {
  const {input} = await inquirer()
  return input({message: asked(io, message), required: true, validate: options.validate}, context(io))
}

/** A secret: typed characters are masked. */
export async function promptSecret(io: IOStreams, message: string): Promise<string> {
  const {password} = await inquirer()
  return password({mask: '*', message: asked(io, message), validate: (v) => (v.length > 0 ? true : 'Required')}, context(io))
}

/**
 * Confirmation before a destructive action: `--yes` skips it; without a terminal (or with CI set) `--yes` is
 * required (exit 2); answering no is exit 1 with nothing changed.
 */
export async function confirmOrThrow(io: IOStreams, message: string, yes: boolean): Promise<void> {
  if (yes) return
  if (!io.canPrompt()) throw needFlag('Confirmation', '--yes')
  const {confirm} = await inquirer()
  const ok = await confirm({default: false, message: asked(io, message)}, context(io))
  if (!ok) throw new DeclinedError()
}

/**
 * A confirmation asked only after checking: `question()` fetches what the question names (a missing resource or one
 * the action cannot apply to fails there, before anything is asked), always; then it asks, unless `--yes` or a dry
 * run answered. Without a terminal `--yes` (or `--dry-run`) is required (exit 2, before any request).
 */
export async function confirmAfterCheck(io: IOStreams, yes: boolean, question: () => Promise<string>): Promise<void> {
  if (!yes && !io.dryRun && !io.canPrompt()) throw needFlag('Confirmation', '--yes')
  // The checks run whatever answers the question (--yes, a dry run): what the question would show is what is checked.
  const asked = await question()
  if (yes || io.dryRun) return
  await confirmOrThrow(io, asked, false)
}

export interface SearchChoice<V> {
  name: string
  value: V
  description?: string
}

/**
 * A search prompt fed by `source` as the person types (@inquirer/prompts `search`): a failing source shows its
 * message as the prompt's error line. Esc cancels as Ctrl-C does (exit 130, through BaseCommand.catch).
 *
 * Enter chooses from the results of what was typed, never from an earlier list. inquirer's search lets Enter pick
 * the highlighted entry of the list on screen while the search for newer text is still running (a slow service,
 * or text pasted in one burst), which is the previous text's top entry. Here Enter waits for the search of the
 * text typed; when the list on screen was for other text, the choice is the top entry of the new results, and
 * when nothing matches, the prompt says so and asks again.
 */
export async function promptSearch<V>(
  io: IOStreams,
  message: string,
  source: (term: string | undefined, signal: AbortSignal) => Promise<Array<SearchChoice<V>>>,
): Promise<V> {
  const {search} = await inquirer()
  const {emitKeypressEvents} = await import('node:readline')
  const cancel = new AbortController()
  const onKey = (_: string, key?: {name?: string}) => {
    if (key?.name === 'escape') cancel.abort()
  }
  emitKeypressEvents(io.stdin)
  io.stdin.on('keypress', onKey)
  try {
    for (let note = ''; ;) {
      /** The latest search asked for (the text typed last), and the text whose results are on screen. */
      let latest: {term: string | undefined; results: Promise<Array<SearchChoice<V>>>} | undefined
      let shown: string | undefined | null = null
      let chosen: {value: V} | undefined
      let nothing = false
      const value = await search<V>(
        {
          message: asked(io, `${message}${note}`),
          pageSize: 10,
          source: (term, {signal}) => {
            const results = source(term, signal).then(
              (choices) => choices.map((c) => ({...c, description: c.description && labelled(c.description), name: labelled(c.name)})),
              (error: unknown) => {
                throw shownError(io, error)
              },
            )
            const asked = {results, term}
            latest = asked
            void results.then(
              () => {
                if (latest === asked) shown = term
              },
              () => {},
            )
            return results
          },
          validate: async () => {
            const asked = latest
            if (!asked || shown === asked.term) return true
            const fresh = await asked.results.catch(() => [])
            if (fresh.length === 0) nothing = true
            else chosen = {value: fresh[0].value}
            return true
          },
        },
        // Cleared when done: no list is left on the screen after Esc, nor a "more" line after loading more.
        {...context(io), clearPromptOnDone: true, signal: cancel.signal},
      )
      if (nothing) {
        note = ` (nothing matched "${latest?.term ?? ''}")`
        continue
      }
      return chosen ? chosen.value : value
    }
  } finally {
    io.stdin.off('keypress', onKey)
  }
}

/** One of `choices`, the default first selected. */
export async function promptSelect<V extends string>(io: IOStreams, message: string, choices: readonly V[], defaultValue?: V): Promise<V> {
  const {select} = await inquirer()
  return select<V>(
    {choices: choices.map((value) => ({name: labelled(value), value})), default: defaultValue, message: asked(io, message)},
    context(io),
  )
}

/** A whole number from `min`, with a default. */
export async function promptCount(io: IOStreams, message: string, defaultValue: number, min = 1): Promise<number> {
  const {number} = await inquirer()
  // The bound said as a person would ("at least 1"), not inquirer's "between 1 and Infinity".
  const validate = (value: number | undefined) =>
    value !== undefined && Number.isInteger(value) && value >= min ? true : `Enter a whole number of at least ${min}.`
  return await number({default: defaultValue, message: asked(io, message), required: true, validate}, context(io))
}

/** Yes or no, with a default; answering never throws (unlike confirmOrThrow). */
export async function promptYesNo(io: IOStreams, message: string, defaultValue: boolean): Promise<boolean> {
  const {confirm} = await inquirer()
  return confirm({default: defaultValue, message: asked(io, message)}, context(io))
}
