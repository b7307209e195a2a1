/** Client-side validation: the domain's rules, refused before any request with exit 2. */
import {type FieldErrors, hasErrors} from '../domain/validate.js'
import {UsageError} from '../errors.js'

export function assertValid(what: string, errors: FieldErrors): void {
  if (!hasErrors(errors)) return
  const count = Object.values(errors).reduce((n, list) => n + list.length, 0)
  throw new UsageError(`Invalid ${what}: ${count === 1 ? '1 problem' : `${count} problems`}; nothing was sent.`, {fieldErrors: errors})
}
