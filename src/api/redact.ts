/**
 * Redaction for the --debug trace: `key_secret` and signing secrets are never shown, an access token at most
 * as its first 4 characters and an ellipsis.
 */
import {abbreviateToken} from '../config/config-store.js'
import {nestsDeeper} from '../domain/json.js'

const HIDDEN = new Set(['key_secret', 'signing_secret', 'secret', 'password', 'client_secret'])
const ABBREVIATED = new Set(['access_token', 'refresh_token', 'token'])

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (HIDDEN.has(k) && v !== null && v !== undefined) out[k] = '[redacted]'
    else if (ABBREVIATED.has(k) && typeof v === 'string') out[k] = abbreviateToken(v)
    else out[k] = redactValue(v)
  }
  return out
}

const REDACT_MAX_DEPTH = 256

/** A JSON body with secrets removed; a body that is not JSON is shown only when it carries no known secret field. */
export function redactBody(text: string): string {
  try {
    const value: unknown = JSON.parse(text)
    // Walked recursively below: an answer too deep to read is not shown (the client refuses it as unexpected).
    if (nestsDeeper(value, REDACT_MAX_DEPTH)) return '[body not shown: it nests too deep to read]'
    return JSON.stringify(redactValue(value))
  } catch {
    return /key_secret|signing_secret|access_token/.test(text) ? '[body not shown: it may contain a secret]' : text.slice(0, 2000)
  }
}

/** `Bearer abcd…`: the scheme, and the credential at most as its first 4 characters (whatever the scheme). */
function redactCredential(value: string): string {
  const m = /^(\S+\s+)(\S.*)$/.exec(value.trim())
  return m ? m[1] + abbreviateToken(m[2]) : (abbreviateToken(value.trim()) ?? '')
}

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase()
    out[k] = name === 'authorization' || name === 'proxy-authorization' ? redactCredential(v) : v
  }
  return out
}

/** A flag whose value is a secret: `--key-secret`, `--secret`, `--token`, `--signing-secret`... */
const SECRET_FLAG = /^--?[\w-]*(secret|token|password)[\w-]*$/i
/** A word that carries a secret whatever its place (a `key_secret=` field, a bearer header, a known prefix). */
const SECRET_WORD = /(secret|token|password|authorization)\s*[=:]|\b(whsec_|sbx_secret_|sk_)\w*/i

/** A command line as the history keeps it: the values of secret flags and any word carrying a secret replaced. */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]
    const eq = word.indexOf('=')
    const flag = word.startsWith('-') ? (eq > 0 ? word.slice(0, eq) : word) : undefined
    if (flag !== undefined && SECRET_FLAG.test(flag) && !/-stdin$/.test(flag)) {
      if (eq > 0) out.push(`${flag}=[redacted]`)
      else {
        out.push(word)
        if (i + 1 < argv.length && !argv[i + 1].startsWith('-')) {
          out.push('[redacted]')
          i++
        }
      }
    } else out.push(SECRET_WORD.test(word) ? '[redacted]' : word)
  }
  return out
}
