/**
 * Warnings that an API version or operation is deprecated, once per run, in the right tense: "retires on DATE"
 * before the date, "was due to retire on DATE: it may stop answering at any time" after it.
 */
import {V1_SUNSET_DATE} from '../domain/schema.js'

export interface DeprecationOptions {
  warnOnce?: (key: string, message: string) => void
  /** The v2 command to suggest. */
  v2Hint?: string
  /** Set when v1 comes from the profile: the flags that select it, for the `config set` hint. */
  v1FromProfile?: string
}

export class DeprecationNotices {
  constructor(
    private readonly options: DeprecationOptions,
    private readonly now: () => number,
  ) {}

  warnV1(fromProfile = false): void {
    const profileFlag = this.options.v1FromProfile
    let use = this.options.v2Hint ? ` Use \`${this.options.v2Hint}\` (v2) instead.` : ' Use API v2 instead.'
    if (fromProfile && profileFlag !== undefined)
      use = ` The profile is set to v1: switch it with \`commerce config set api_version v2${profileFlag}\`, or pass --api-version v2.`
    this.options.warnOnce?.('deprecation', `API v1 is deprecated and ${this.retires(V1_SUNSET_DATE, 'retires', 'was due to retire')}.${use}`)
  }

  /** From a response's Deprecation and Sunset headers. */
  notice(headers: Record<string, string>, isV1: boolean, v1FromProfile: boolean): void {
    const deprecation = headers.deprecation
    const sunset = headers.sunset
    if (!deprecation && !sunset) return
    if (isV1) return this.warnV1(v1FromProfile)
    const when = sunset ? ` and ${this.retires(sunset, 'will be removed', 'was due to be removed')}` : ''
    this.options.warnOnce?.(
      'deprecation',
      `The service marks this operation as deprecated${when}.${this.options.v2Hint ? ` See \`${this.options.v2Hint}\`.` : ''}`,
    )
  }

  /** "retires on DATE", or after that date "was due to retire on DATE: it may stop answering at any time". */
  private retires(date: string, future: string, past: string): string {
    const at = Date.parse(date)
    return Number.isFinite(at) && this.now() >= at ? `${past} on ${date}: it may stop answering at any time` : `${future} on ${date}`
  }
}
