/** Credentials stay with the origin they were stored for (src/api/auth.ts asks here before using a profile's). */
import {AuthError} from '../errors.js'
import type {TokenSource} from './request.js'

/**
 * A profile's credentials asked for at an origin the profile was not logged in at (`--base-url` or
 * COMMERCE_BASE_URL naming another server): nothing is sent, exit 3 naming both origins. `gh` keeps its tokens
 * per host for the same reason: one pasted command or a CI variable set by someone else must not hand the key pair
 * to another server.
 */
export class ForeignOrigin implements TokenSource {
  constructor(
    private readonly message: string,
    private readonly advice: string,
  ) {}

  async getToken(): Promise<string> {
    throw new AuthError(this.message, {hint: this.advice})
  }

  async renew(): Promise<undefined> {
    return undefined
  }

  /** Never a cached token: it belongs to the profile's own origin. */
  async cached(): Promise<undefined> {
    return undefined
  }
}

/** The origin (scheme, host, port) of a URL, or undefined when it does not parse. */
export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

/** Where the base URL in effect came from, when it overrides the profile's own. */
export interface BaseUrlOverride {
  url: string
  /** `--base-url` or `COMMERCE_BASE_URL`. */
  from: string
}

/** A stand-in for the profile's credentials when the base URL in effect is at another origin; undefined at its own. */
export function foreignOrigin(profileName: string, profileUrl: string, override: BaseUrlOverride): ForeignOrigin | undefined {
  const own = originOf(profileUrl)
  const asked = originOf(override.url)
  if (!own || !asked || own === asked) return undefined
  return new ForeignOrigin(
    `Profile "${profileName}" was logged in at ${own}; its key pair and token are not sent to ${asked} (${override.from}). Nothing was sent.`,
    `To use ${asked}: log a profile in there (\`commerce auth login --base-url ${override.url} --profile NAME\`), choose a profile logged in there with --profile, or give this call its own credentials in COMMERCE_KEY_ID and COMMERCE_KEY_SECRET (or COMMERCE_ACCESS_TOKEN).`,
  )
}
