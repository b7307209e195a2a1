/** What `sandbox start` and `sandbox status` print for a person: where it runs, its records, its keys and their scopes. */
import {configDir} from '../../config/paths.js'
import type {SandboxState} from '../../config/sandbox-state.js'
import {ConfigStore} from '../../config/config-store.js'
import {counted, formatCount} from '../../domain/text.js'
import {CONTROL_PREFIX, OPERATION_SCOPES, type SandboxCounts} from '../../sandbox/index.js'

/** The human description `start` and `status` print. */
export function describeSandbox(state: SandboxState, counts?: SandboxCounts | null, loggedIn: readonly string[] = []): string[] {
  const lines = [`Sandbox running at ${state.base_url} (pid ${state.pid})`, `Data file: ${state.data_file ?? 'none (in memory)'}`]
  if (counts) {
    lines.push(
      `Records: ${counted(counts.customers, 'customer')}, ${counted(counts.orders, 'order')}, ${counted(counts.refunds, 'refund')}, ${counted(counts.webhooks, 'webhook')}, ${counted(counts.products, 'product')}`,
      `Webhook deliveries pending: ${formatCount(counts.pending_deliveries)}`,
    )
  } else if (counts === null) {
    lines.push('Records: unknown (the sandbox did not answer on its control path)')
  }
  // Each key on two lines (id and scopes, then its secret), so that they fit 80 columns.
  lines.push('Key pairs (test keys of this local sandbox):')
  for (const k of state.keys) lines.push(`  ${k.key_id}  ${k.scopes.join(',')}`, `    secret ${k.key_secret}`)
  lines.push(...scopeLines())
  // Told how to log in only when no profile is logged in here already.
  lines.push(
    loggedIn.length > 0
      ? `Logged in here: profile${loggedIn.length === 1 ? '' : 's'} ${loggedIn.map((p) => `"${p}"`).join(', ')}.`
      : 'Log in with `commerce auth login --sandbox`.',
    `Inspector: ${state.base_url}${CONTROL_PREFIX}/ui (\`commerce sandbox open\`)`,
  )
  return lines
}

/**
 * What each scope allows here, from the sandbox's own table (OPERATION_SCOPES): the spec names the scopes but not
 * which operation needs which, so a newcomer is told this sandbox's choice, and that a service may choose otherwise.
 */
function scopeLines(): string[] {
  const byScope = new Map<string, string[]>()
  for (const [operation, scope] of Object.entries(OPERATION_SCOPES))
    byScope.set(scope, [...(byScope.get(scope) ?? []), operation.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)])
  const lines = ["Scopes (this sandbox's choice; the spec does not say, and a service may differ):"]
  const width = Math.max(...[...byScope.keys()].map((s) => s.length))
  for (const [scope, operations] of [...byScope].sort(([a], [b]) => a.localeCompare(b))) {
    let line = `  ${scope.padEnd(width)}  `
    const indent = ' '.repeat(line.length)
    for (const [i, op] of operations.entries()) {
      const word = `${op}${i < operations.length - 1 ? ',' : ''}`
      if (line.length + word.length + 1 > 80 && line.trim() !== scope) {
        lines.push(line.trimEnd())
        line = indent
      }
      line += line.endsWith(' ') ? word : ` ${word}`
    }
    lines.push(line.trimEnd())
  }
  return lines
}

/** The profiles logged in at this sandbox (their base URL is its, and they hold a key): `sandbox status` names them. */
export async function profilesAt(env: NodeJS.ProcessEnv, baseUrl: string): Promise<string[]> {
  const data = await new ConfigStore(configDir(env)).read().catch(() => undefined)
  const same = (url: string | undefined) => url?.replace(/\/+$/, '') === baseUrl.replace(/\/+$/, '')
  return Object.entries(data?.profiles ?? {})
    .filter(([, p]) => same(p.base_url) && p.key_id !== undefined)
    .map(([name]) => name)
}
