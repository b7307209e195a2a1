/**
 * A window's ends as every command reads them (domain/window-grammar.ts, the one grammar): the calendar of the zone
 * in effect, and a --since/--until made an instant, exit 2 naming the option for a value it cannot read. The stats
 * count by the calendar (a span includes the current unit); the webhook inbox does not (a span goes back exactly that
 * long). Temporal is loaded here, by the commands that read a window only.
 */
import {chooseTimeZone, loadTemporal, MomentError, ZoneCalendar} from '../domain/periods.js'
import {option, phrase} from '../domain/phrase.js'
import {SINCE_FORMS, UNTIL_FORMS} from '../domain/window-grammar.js'
import {UsageError} from '../errors.js'
import {sanitize} from '../io/sanitize.js'
import type {IOStreams} from '../io/streams.js'

/** The calendar of the local time zone (TZ when it names a zone, else the system's, else UTC with a warning) or UTC. */
export async function zoneCalendar(env: NodeJS.ProcessEnv, utc: boolean, io: IOStreams): Promise<ZoneCalendar> {
  const T = await loadTemporal()
  const zone = chooseTimeZone(T, {system: Intl.DateTimeFormat().resolvedOptions().timeZone, tz: env.TZ, utc})
  if (zone.unknown !== undefined)
    io.warn(
      `${zone.unknown === '' ? 'TZ is empty' : `TZ=${sanitize(zone.unknown, 'terminal')} is not a time zone this system knows`}: counting in UTC.`,
    )
  return ZoneCalendar.with(T, zone.timeZone)
}

/** `--since` or `--until` as an instant; `aligned`: a span includes the current unit (a command that counts by the calendar). */
export function momentOf(calendar: ZoneCalendar, name: 'since' | 'until', text: string, now: number, aligned = true): number {
  try {
    return name === 'since' ? calendar.since(text.trim(), now, aligned) : calendar.until(text.trim())
  } catch (error) {
    if (!(error instanceof MomentError)) throw error
    const help = name === 'since' ? SINCE_FORMS : UNTIL_FORMS
    if (error.message === MomentError.UNREADABLE) throw new UsageError(phrase`${option(name)} must be ${help} (got ${JSON.stringify(text)}).`)
    throw new UsageError(phrase`${option(name)} ${JSON.stringify(text)}: ${error.message}. It takes ${help}.`)
  }
}
