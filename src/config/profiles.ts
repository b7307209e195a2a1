/** Profiles in the config data: which one a command uses, creating one, and how its secrets are shown. */
import {closest} from '../domain/suggest.js'
import {UsageError} from '../errors.js'
import {type ConfigData, type Profile} from './config-schema.js'

export const DEFAULT_PROFILE = 'default'

/**
 * Profile selection: --profile > COMMERCE_PROFILE > the chosen profile > `default`. A profile named on purpose
 * (the flag or the variable) must exist, unless the command creates profiles (`auth login`, `config set`): a
 * typo is exit 2 naming it and the nearest existing profile, never an empty profile used in silence. `loginFlags`
 * (` --base-url URL`) are repeated in the command the hint gives.
 */
export function selectProfileName(
  data: ConfigData,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  options: {mayCreate?: boolean; loginFlags?: string} = {},
): string {
  const named = flag || env.COMMERCE_PROFILE
  const name = named || data.current_profile || DEFAULT_PROFILE
  // `default` is what no choice at all selects: naming it is never a typo (credentials may come from the environment).
  if (named && named !== DEFAULT_PROFILE && !options.mayCreate && !data.profiles?.[named]) {
    const existing = Object.keys(data.profiles ?? {})
    const nearest = closest(named, existing)
    const how = flag ? `--profile ${flag}` : `COMMERCE_PROFILE=${named}`
    throw new UsageError(`No profile is named "${named}" (${how}).`, {
      hint: [
        nearest ? `Did you mean "${nearest}"?` : undefined,
        existing.length > 0 ? `Profiles: ${existing.join(', ')}.` : 'There are no profiles yet.',
        `Create it with \`commerce auth login --profile ${named}${options.loginFlags ?? ''}\`.`,
      ]
        .filter(Boolean)
        .join(' '),
    })
  }
  return name
}

/** Creates the profile when missing; the first profile ever created becomes the chosen one. */
export function ensureProfile(data: ConfigData, name: string): Profile {
  data.profiles ??= {}
  if (!data.profiles[name]) {
    data.profiles[name] = {}
    data.current_profile ??= name
  }
  return data.profiles[name]
}

/** A secret (key secret, signing secret) as shown to people: never any of its characters. */
export function maskSecret(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? value : '********'
}

/** An access token as shown in traces and status: at most its first 4 characters, then an ellipsis. */
export function abbreviateToken(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? value : `${value.slice(0, 4)}…`
}
