/**
 * Rules for the service's base URL and for request paths, as plain checks that return a problem (a sentence) or
 * undefined, like src/domain/validate.ts: the callers (src/api/base-url.ts) turn a problem into a usage error.
 *
 * A base URL is `http(s)://host[:port][/prefix]`: no userinfo (a password in it would be printed and sent to
 * every proxy), no query and no fragment (the API path would be appended inside them). Plain `http://` is for
 * loopback hosts only unless the user opts in: the key secret and tokens would otherwise travel in clear.
 */

/** `localhost`, `*.localhost`, 127.0.0.0/8 and `[::1]`: names that never leave the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (host === '[::1]' || host === '::1') return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/**
 * A URL as it may be shown: without userinfo (`http://***@host/` when there was some). For anything that is not
 * a URL, the text up to the first `@` is dropped too, so a password never reaches a message.
 */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.username === '' && parsed.password === '') return url
    parsed.username = ''
    parsed.password = ''
    return parsed.toString().replace('//', '//***@')
  } catch {
    const at = url.lastIndexOf('@')
    return at === -1 ? url : `***${url.slice(at)}`
  }
}

export interface BaseUrlOptions {
  /** The user opted in to plain http:// to a host that is not loopback. */
  allowInsecureHttp?: boolean
}

export type BaseUrlProblem = {kind: 'insecure' | 'invalid'; message: string}

/** The base URL without trailing slashes, or the problem with it. */
export function checkBaseUrlText(url: string, options: BaseUrlOptions = {}): {url: string} | {problem: BaseUrlProblem} {
  const shown = JSON.stringify(displayUrl(url))
  const invalid = (message: string) => ({problem: {kind: 'invalid' as const, message}})
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return invalid(`The base URL ${shown} is not a valid URL.`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return invalid(`The base URL must start with https:// or http:// (got ${shown}).`)
  if (parsed.username !== '' || parsed.password !== '' || /^[a-z]+:\/\/[^/?#]*@/i.test(url))
    return invalid(`The base URL must not carry a user name or password (got ${shown}): the CLI authenticates with your key pair or token.`)
  // `new URL` drops an empty query or fragment (`https://host/?`), so the text itself is checked.
  if (url.includes('?') || url.includes('#'))
    return invalid(`The base URL must not have a query (?) or fragment (#) (got ${shown}): the API path is appended to it.`)
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname) && !options.allowInsecureHttp)
    return {
      problem: {
        kind: 'insecure',
        message: `The base URL ${shown} is plain http:// to a host that is not this machine: the key secret and tokens would travel in clear.`,
      },
    }
  return {url: url.replace(/\/+$/, '')}
}

/**
 * A request path's problem: a `.` or `..` segment (also percent-encoded), which URL resolution would apply and
 * so take the request, and its token, outside the API's path.
 */
export function dotSegmentProblem(path: string): string | undefined {
  const pathname = path.split(/[?#]/, 1)[0]
  for (const segment of pathname.split('/')) {
    let decoded = segment
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      // a malformed escape is not a dot segment
    }
    if (decoded === '.' || decoded === '..' || /^(?:\.|%2e){1,2}$/i.test(segment))
      return `the path ${JSON.stringify(path)} has a "${decoded}" segment, which could take the request outside the API's path`
  }
  return undefined
}

/**
 * The problem with where a request would go, judged on the URL the client sends (WHATWG's parser, which reads `\`
 * as `/` and resolves `..` and `%2e%2e` segments): not under the base URL's own path and `/api/`, on the base URL's
 * origin, it is refused. An encoded `/` or `\` (`%2f`, `%5c`) is refused too: a server that decodes it before it
 * routes would see another path than this check did. `asTyped` is the path as the user or the caller gave it.
 */
export function resolvedPathProblem(url: URL, baseUrl: string, asTyped: string): string | undefined {
  const base = new URL(baseUrl)
  const prefix = `${base.pathname.replace(/\/+$/, '')}/api/`
  const where = `the path ${JSON.stringify(asTyped)}`
  if (url.origin !== base.origin || !url.pathname.startsWith(prefix))
    return `${where} resolves to ${url.origin === base.origin ? url.pathname : url.href}, outside the API's path (${prefix})`
  if (/%(?:2f|5c)/i.test(url.pathname)) return `${where} has an encoded "/" or "\\", which a server could read as another path`
  return undefined
}

/**
 * A header value the wire can carry (undici's rule: tab, visible ASCII and Latin-1 only): no CR, LF, NUL or
 * other control character, and no character past U+00FF.
 */
export function headerValueProblem(value: string): string | undefined {
  const m = /[^\t\u0020-\u007E\u0080-\u00FF]/.exec(value)
  if (!m) return undefined
  const c = m[0]
  const code = `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
  if (c === '\r') return 'contains a carriage return (CR)'
  if (c === '\n') return 'contains a line feed (LF)'
  return c.charCodeAt(0) < 0x20 || c === '\u007F' ? `contains a control character (${code})` : `contains a character (${code}) outside Latin-1`
}
