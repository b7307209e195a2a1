/**
 * Every environment variable the CLI reads, what it means, and which commands read it: one table for docs/environment.md
 * (written from it by `npm run generate`) and `commands --json` (services/command-catalogue.ts).
 */

/** `every` command; the commands that call the `service`; or these command ids. */
export type Readers = 'every' | 'service' | readonly string[]

export interface Variable {
  /** One variable, or several read together (`COMMERCE_KEY_ID`, `COMMERCE_KEY_SECRET`). */
  names: readonly string[]
  /** Markdown, as the docs page shows it. */
  meaning: string
  readers: Readers
}

export const ENVIRONMENT: readonly Variable[] = [
  {
    meaning: 'base URL of the service',
    names: ['COMMERCE_BASE_URL'],
    readers: 'service',
  },
  {
    meaning: 'profile to use',
    names: ['COMMERCE_PROFILE'],
    readers: 'every',
  },
  {
    meaning: 'a bearer token used as is (never renewed)',
    names: ['COMMERCE_ACCESS_TOKEN'],
    readers: 'service',
  },
  {
    meaning: 'a key pair (both or neither: one alone is exit 2)',
    names: ['COMMERCE_KEY_ID', 'COMMERCE_KEY_SECRET'],
    readers: 'service',
  },
  {
    meaning: 'directory of `config.json`, the sandbox state, the webhook inbox and import journals',
    names: ['COMMERCE_CONFIG_DIR'],
    readers: 'every',
  },
  {
    meaning: 'how long and how much of the webhook inbox is kept (default `7d` and `64MB`; [webhooks.md](webhooks.md))',
    names: ['COMMERCE_INBOX_MAX_AGE', 'COMMERCE_INBOX_MAX_SIZE'],
    readers: ['webhooks:listen', 'webhooks:events', 'webhooks:replay', 'mcp'],
  },
  {
    meaning:
      'seconds one whole exchange may take, connection, headers and body included (default 30); past it the command stops with exit 1 (not retried)',
    names: ['COMMERCE_HTTP_TIMEOUT'],
    readers: 'service',
  },
  {
    meaning:
      'the largest response body accepted, in bytes or with a unit (`64MiB`, `512KiB`; default `8MiB`: eight times the largest page (100 records), and it keeps the CLI under 100 MB of memory against a server that streams without end); a larger `Content-Length` is refused before the body is read, and a body that goes on past it is cut there (exit 1)',
    names: ['COMMERCE_HTTP_MAX_BYTES'],
    readers: 'service',
  },
  {
    meaning: 'seconds a `--jq` filter may run (default 10); past it the command stops with exit 1',
    names: ['COMMERCE_JQ_TIMEOUT'],
    readers: 'every',
  },
  {
    meaning:
      'seconds one OS keyring call may take (default 3); each call runs in a helper process that is killed then, so a keyring or D-Bus session that never answers cannot hang a command',
    names: ['COMMERCE_KEYRING_TIMEOUT'],
    readers: 'service',
  },
  {
    meaning: 'a signing secret for `webhooks sign`, `verify` and `replay` (out of the process list)',
    names: ['COMMERCE_WEBHOOK_SECRET'],
    readers: ['webhooks:sign', 'webhooks:verify', 'webhooks:replay', 'webhooks:listen'],
  },
  {
    meaning: 'seconds a `webhooks listen` reachability probe may take (default 10)',
    names: ['COMMERCE_WEBHOOK_PROBE_TIMEOUT'],
    readers: ['webhooks:listen'],
  },
  {
    meaning: 'proxy settings, honoured by the HTTP client',
    names: ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'],
    readers: 'service',
  },
  {
    meaning: 'no colour, always (wins over everything)',
    names: ['NO_COLOR'],
    readers: 'every',
  },
  {
    meaning: 'colour even when stdout is not a terminal (`TERM=dumb`: no colour on a terminal)',
    names: ['FORCE_COLOR'],
    readers: 'every',
  },
  {
    meaning:
      'the pager of a table or report taller than the terminal (default `less -FRX`; `""` or `cat`, or `--no-pager` on the commands that page: none); never on a pipe',
    names: ['COMMERCE_PAGER', 'PAGER'],
    readers: 'every',
  },
  {
    meaning: 'the registry the update notice asks (default the npm registry), and `1` to turn the notice off',
    names: ['COMMERCE_UPDATE_REGISTRY', 'COMMERCE_SKIP_UPDATE_CHECK'],
    readers: 'every',
  },
  {
    meaning: 'never prompt, never draw spinners or progress bars',
    names: ['CI'],
    readers: 'every',
  },
  {
    meaning: '`1`: record no change in the history ([history.md](history.md)); `commerce config set history off` does it for a profile',
    names: ['COMMERCE_NO_HISTORY'],
    readers: 'service',
  },
  {
    meaning: 'how long and how much of the history is kept (default `90d` and `16MB`; [history.md](history.md))',
    names: ['COMMERCE_HISTORY_MAX_AGE', 'COMMERCE_HISTORY_MAX_SIZE'],
    readers: 'service',
  },
  {
    meaning: '`1`: help is rendered by oclif every time, never printed from the copy kept in the cache directory ([performance.md](performance.md))',
    names: ['COMMERCE_NO_HELP_CACHE'],
    readers: 'every',
  },
  {
    meaning:
      '`1`: oclif loads every plugin and the whole command table for each command, as it does when a plugin is installed ([performance.md](performance.md))',
    names: ['COMMERCE_NO_LEAN_START'],
    readers: 'every',
  },
]
