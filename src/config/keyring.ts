/**
 * The key secret in the OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux)
 * through `@napi-rs/keyring`, a maintained native binding with prebuilt binaries (keytar is archived). The
 * binding is loaded only when a secret is read, written or deleted. Every call gives up after 3 s (a keyring that
 * hangs, as GNOME's, arm64's and WSL's have for others) and any failure is a KeyringError: callers fall back to
 * the config file with a warning, or fail with a clear message, never hang or crash.
 *
 * Entries: service `commerce-cli`, account `<profile>:<key_id>`.
 */
export const KEYRING_SERVICE = 'commerce-cli'
export const KEYRING_TIMEOUT_MS = 3000
/** A probe (is there a keyring at all?) gives up sooner: it only decides whether to mention `--storage keyring`. */
export const KEYRING_PROBE_TIMEOUT_MS = 1000

export type Storage = 'file' | 'keyring'
export const STORAGES: readonly Storage[] = ['file', 'keyring']

export class KeyringError extends Error {}

export function keyringAccount(profile: string, keyId: string): string {
  return `${profile}:${keyId}`
}

type AsyncEntryClass = typeof import('@napi-rs/keyring').AsyncEntry

async function entryClass(): Promise<AsyncEntryClass> {
  try {
    return (await import('@napi-rs/keyring')).AsyncEntry
  } catch (error) {
    throw new KeyringError(`the keyring binding could not be loaded (${(error as Error).message})`)
  }
}

async function call<T>(account: string, run: (entry: InstanceType<AsyncEntryClass>, signal: AbortSignal) => Promise<T>, timeoutMs = KEYRING_TIMEOUT_MS): Promise<T> {
  const AsyncEntry = await entryClass()
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort()
      reject(new KeyringError(`the OS keyring did not answer within ${timeoutMs / 1000} s`))
    }, timeoutMs)
    timer.unref()
  })
  try {
    return await Promise.race([run(new AsyncEntry(KEYRING_SERVICE, account), controller.signal), timeout])
  } catch (error) {
    if (error instanceof KeyringError) throw error
    throw new KeyringError(`the OS keyring refused (${(error as Error).message})`)
  } finally {
    clearTimeout(timer)
  }
}

/** The secret stored for `account`, or undefined when there is none. */
export async function keyringGet(account: string): Promise<string | undefined> {
  return (await call(account, (entry, signal) => entry.getPassword(signal))) ?? undefined
}

export async function keyringSet(account: string, secret: string): Promise<void> {
  await call(account, (entry, signal) => entry.setPassword(secret, signal))
}

/** Removes the entry; true when there was one. */
export async function keyringDelete(account: string): Promise<boolean> {
  return call(account, (entry, signal) => entry.deletePassword(signal))
}

/**
 * Whether an OS keyring answers at all: a search of this CLI's entries (`findCredentialsAsync`; a read of one
 * missing entry cannot tell, the binding answers "none" when no keyring is reachable either), given up after
 * `timeoutMs`. What it finds is discarded. Never throws; false on any failure or timeout.
 */
export async function keyringAnswers(timeoutMs = KEYRING_PROBE_TIMEOUT_MS): Promise<boolean> {
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      controller.abort()
      resolve(false)
    }, timeoutMs)
    timer.unref()
  })
  try {
    const {findCredentialsAsync} = await import('@napi-rs/keyring')
    return await Promise.race([findCredentialsAsync(KEYRING_SERVICE, undefined, controller.signal).then(() => true), timeout])
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}
