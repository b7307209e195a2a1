/**
 * The domain's URL and header rules (src/domain/url.ts) as usage errors (exit 2), raised before anything is sent.
 */
import {type BaseUrlOptions, checkBaseUrlText, dotSegmentProblem, headerValueProblem, resolvedPathProblem} from '../domain/url.js'
import {UsageError} from '../errors.js'
import {phrase, type Text} from '../domain/phrase.js'

/** How to set a base URL; `flags` repeats the user's own `--profile`/`--api-version` (e.g. ` --profile staging`). */
export function noBaseUrlHint(flags = ''): string {
  return (
    `Pass --base-url URL, set COMMERCE_BASE_URL, or store one with \`commerce auth login${flags} --base-url URL\` ` +
    `(for the local sandbox: \`commerce sandbox start\`, then \`commerce auth login --sandbox${flags}\`).`
  )
}

/** How to opt in to plain http://; `flags` repeats the user's own `--profile` (e.g. ` --profile staging`). */
export function insecureHttpHint(flags = ''): string {
  return (
    'Use https://, or, if you accept that risk (e.g. a private test network), pass --allow-insecure-http or run ' +
    `\`commerce config set allow_insecure_http true${flags}\` for the profile.`
  )
}

/**
 * The base URL without trailing slashes; exit 2 when it is invalid, or plain http:// elsewhere than loopback
 * without opt-in. `hintFlags`: the user's own `--profile`/`--api-version`, repeated in the hint.
 */
export function checkBaseUrl(url: string, options: BaseUrlOptions & {hintFlags?: string} = {allowInsecureHttp: true}): string {
  const result = checkBaseUrlText(url, options)
  if ('url' in result) return result.url
  const {hintFlags = ''} = options
  throw new UsageError(result.problem.message, {
    hint: result.problem.kind === 'insecure' ? insecureHttpHint(hintFlags.replace(/ --api-version \S+/, '')) : noBaseUrlHint(hintFlags),
  })
}

/** Exit 2 for a request path with a `.` or `..` segment. */
export function checkRequestPath(path: string): void {
  const problem = dotSegmentProblem(path)
  if (problem) throw new UsageError(`Refused: ${problem}. Nothing was sent.`)
}

/** Exit 2 for a request URL outside the base URL's API path, however the path spelled it (domain/url.ts). */
export function checkResolvedPath(url: URL, baseUrl: string, asTyped: string): void {
  const problem = resolvedPathProblem(url, baseUrl, asTyped)
  if (problem) throw new UsageError(`Refused: ${problem}. Nothing was sent.`)
}

/**
 * Exit 2 for a header value with CR, LF or another control character (header injection); the value is never
 * shown (it may be a credential). `source` names where it came from, e.g. the headers option or
 * `COMMERCE_ACCESS_TOKEN`.
 */
export function checkHeaderValue(source: Text, value: string): void {
  const problem = headerValueProblem(value)
  if (problem) throw new UsageError(phrase`The value of ${source} ${problem}, which an HTTP header cannot carry. Nothing was sent.`)
}
