/**
 * Text that names options of a service. Services know their options object (`secretFile`), not the flags a command
 * maps onto it (`--secret-file`), so where a message must name an option they write
 * phrase`${option('secretFile')}: no such file.` and the command layer spells each option as its flag
 * (BaseCommand.catch: the command's `fieldFlags`, else `--` and the option's name in kebab case). Anywhere else a
 * phrase reads with the options' own names.
 */
export interface OptionRef {
  readonly option: string
}

export const option = (name: string): OptionRef => ({option: name})

const isRef = (value: unknown): value is OptionRef =>
  typeof value === 'object' && value !== null && typeof (value as OptionRef).option === 'string' && Object.keys(value).length === 1

export class Phrase {
  constructor(readonly parts: readonly (string | OptionRef)[]) {}

  /** The text with each option named by `name`. */
  spell(name: (option: string) => string): string {
    return this.parts.map((p) => (typeof p === 'string' ? p : name(p.option))).join('')
  }

  toString(): string {
    return this.spell((o) => o)
  }
}

/** A tagged template: option(...) values stay options, phrases nest, anything else becomes its string. */
export function phrase(strings: TemplateStringsArray, ...values: unknown[]): Phrase {
  const parts: (string | OptionRef)[] = []
  strings.forEach((text, i) => {
    parts.push(text)
    if (i >= values.length) return
    const value = values[i]
    if (value instanceof Phrase) parts.push(...value.parts)
    else if (isRef(value)) parts.push(value)
    else parts.push(String(value))
  })
  return new Phrase(parts)
}

/** A message or a hint: plain, or naming options. */
export type Text = string | Phrase

export function spell(text: Text, name: (option: string) => string): string
export function spell(text: Text | undefined, name: (option: string) => string): string | undefined
export function spell(text: Text | undefined, name: (option: string) => string): string | undefined {
  return text instanceof Phrase ? text.spell(name) : text
}

/** How a command-line tool names an option by default: `secretFile` -> `--secret-file`. */
export const kebabFlag = (name: string): string => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
