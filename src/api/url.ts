/**
 * The domain's URL and header rules (src/domain/url.ts) as usage errors (exit 2), raised before anything is sent.
 */
import {type BaseUrlOptions, checkBaseUrlText, dotSegmentProblem, headerValueProblem} from '../domain/url.js'
import {UsageError} from '../errors.js'

export const NO_BASE_URL_HINT =
  'Pass --base-url URL, set COMMERCE_BASE_URL, or store one with `commerce auth login --base-url URL` ' +
  '(for the local sandbox: `commerce sandbox start`, then `commerce auth login --sandbox`).'

export const INSECURE_HTTP_HINT =
  'Use https://, or, if you accept that risk (e.g. a private test network), pass --allow-insecure-http or run ' +
  '`commerce config set allow_insecure_http true` for the profile.'

/** The base URL without trailing slashes; exit 2 when it is invalid, or plain http:// elsewhere than loopback without opt-in. */
export function checkBaseUrl(url: string, options: BaseUrlOptions = {allowInsecureHttp: true}): string {
  const result = checkBaseUrlText(url, options)
  if ('url' in result) return result.url
  throw new UsageError(result.problem.message, {hint: result.problem.kind === 'insecure' ? INSECURE_HTTP_HINT : NO_BASE_URL_HINT})
}

/** Exit 2 for a request path with a `.` or `..` segment. */
export function checkRequestPath(path: string): void {
  const problem = dotSegmentProblem(path)
  if (problem) throw new UsageError(`Refused: ${problem}. Nothing was sent.`)
}

/**
 * Exit 2 for a header value with CR, LF or another control character (header injection); the value is never
 * shown (it may be a credential). `source` names where it came from, e.g. `--header X-Trace` or
 * `COMMERCE_ACCESS_TOKEN`.
 */
export function checkHeaderValue(source: string, value: string): void {
  const problem = headerValueProblem(value)
  if (problem) throw new UsageError(`The value of ${source} ${problem}, which an HTTP header cannot carry. Nothing was sent.`)
}
