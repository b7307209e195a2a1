/** The values of the `config` keys: parsed and checked for \`config set\`, shown (masked when secret) by get and list. */
import {closest} from '../domain/suggest.js'
import {checkBaseUrl} from '../api/base-url.js'
import {STORAGES} from '../config/keyring.js'
import {CONFIG_KEYS, type ConfigKey, isSecretField, type Profile} from '../config/config-schema.js'
import {maskSecret} from '../config/config-store.js'
import {API_VERSIONS, DEFAULT_API_VERSION, MONEY_UNITS} from '../domain/schema.js'
import {checkOneOf} from '../domain/validate.js'
import {UsageError} from '../errors.js'

/** Parses a KEY argument: an unknown key is exit 2, naming the keys. */
export function parseKey(key: string): ConfigKey {
  if ((CONFIG_KEYS as readonly string[]).includes(key)) return key as ConfigKey
  const near = closest(key, CONFIG_KEYS)
  throw new UsageError(`Unknown key ${JSON.stringify(key)}.${near ? ` Did you mean ${near}?` : ''} Keys: ${CONFIG_KEYS.join(', ')}.`)
}

/** Checks and normalises a value for a key (exit 2 when invalid). */
export function checkValue(key: ConfigKey, value: string): string {
  switch (key) {
    case 'base_url': {
      return checkBaseUrl(value.trim())
    }

    case 'api_version': {
      const problem = checkOneOf(value, API_VERSIONS, DEFAULT_API_VERSION)
      if (problem) throw new UsageError(`api_version ${problem}`)
      return value
    }

    case 'storage': {
      const problem = checkOneOf(value, STORAGES)
      if (problem) throw new UsageError(`storage ${problem}`)
      return value
    }

    case 'money_unit': {
      // The unit of the service's amounts, for how a terminal shows them (src/io/values.ts); never sent.
      const v = value.trim().toLowerCase()
      const problem = checkOneOf(v, MONEY_UNITS)
      if (problem)
        throw new UsageError(`money_unit ${problem}: minor when amounts count cents and pence (13112 is €131.12), major when they count whole units.`)
      return v
    }

    case 'history': {
      // off: this profile's changes to the account are not recorded (config/history.ts); on: they are (the default).
      const v = value.trim().toLowerCase()
      if (v !== 'on' && v !== 'off') throw new UsageError(`history must be on or off (got ${JSON.stringify(value)}).`)
      return v
    }

    case 'allow_insecure_http': {
      const v = value.trim().toLowerCase()
      if (v !== 'true' && v !== 'false') throw new UsageError(`allow_insecure_http must be true or false (got ${JSON.stringify(value)}).`)
      return v
    }

    case 'key_id':
    case 'key_secret': {
      if (value.trim() === '') throw new UsageError(`${key} cannot be empty; use \`commerce config unset ${key}\` to remove it.`)
      return key === 'key_id' ? value.trim() : value
    }
  }
}

export function shown(key: ConfigKey, profile: Profile | undefined): string | null {
  if (key === 'api_version') return profile?.api_version ?? DEFAULT_API_VERSION
  if (key === 'storage') return profile?.storage ?? 'file'
  // A secret kept in the OS keyring is there, though not in the file.
  if (key === 'key_secret' && profile?.storage === 'keyring' && profile.key_id && !profile.key_secret) return maskSecret('keyring')!
  const value = profile?.[key]
  if (value === undefined || value === '') return null
  return isSecretField(key) ? maskSecret(value)! : value
}
