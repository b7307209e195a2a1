/** JSON arrays on stdout for --json lists, apart from the table renderer so that --json never loads it. */
import type {IOStreams} from './streams.js'

/** Up to this much JSON is held before the array starts streaming out. */
export const JSON_BUFFER_BYTES = 8 * 1024 * 1024

/**
 * A JSON array of serialised elements (`[`, elements separated by `,` and `sep`, `]`; `[]` when empty).
 *
 * Up to JSON_BUFFER_BYTES the array is held and written whole at the end, so that a failure midway (a later
 * page answered 5xx, or 429 after the retries) leaves stdout with the error document alone. Past that, it
 * streams as elements arrive and memory stays flat: a failure then leaves the array unterminated (no parser
 * takes it for the whole list) and the error goes to stderr (IOStreams.resultStarted).
 */
export async function writeJsonArray(io: IOStreams, texts: AsyncIterable<string>, sep: string, indent = ''): Promise<void> {
  let held: string[] | undefined = []
  let bytes = 0
  let first = true
  const emit = async (text: string) => {
    await write(io.stdout, (first ? '[' : ',') + sep + indent + text)
    first = false
  }
  for await (const text of texts) {
    if (!held) {
      await emit(text)
      continue
    }
    held.push(text)
    bytes += text.length
    if (bytes > JSON_BUFFER_BYTES) {
      io.resultStarted = true
      for (const t of held) await emit(t)
      held = undefined
    }
  }
  if (held) for (const t of held) await emit(t)
  await write(io.stdout, first ? '[]\n' : sep + ']\n')
}

export function write(stream: NodeJS.WritableStream, chunk: string): Promise<void> | void {
  if (stream.write(chunk)) return
  return new Promise((resolve) => stream.once('drain', () => resolve()))
}
