/**
 * The plugin API: what the `commerce-service-cli` package exports to plugins (`commerce plugins link|install`). A plugin command
 * extends CommerceCommand and gets, as every built-in command does:
 * - `this.ctx.profile()`, `this.ctx.baseUrl()`: the resolved profile and base URL (--profile, COMMERCE_* variables);
 * - `await this.ctx.client()`: the authenticated HTTP client (token issue and renewal, retries, 429 waits,
 *   redaction in --debug, errors mapped to the documented exit codes); `listing()` follows its pages;
 * - `this.output`: the output channel (--json, --jq, tables on a terminal, tab-separated rows on a pipe);
 * - `this.io`: the terminal rules (colour, prompts only on a terminal), and `this.deps` (env, streams, clock).
 * Flags and Args are @oclif/core's, the instance the CLI runs on. Documented in docs/aliases-and-plugins.md.
 */
export {Args, Flags} from '@oclif/core'

export {ApiCommand as CommerceCommand, BaseCommand} from './base/command.js'
export {CliError, EXIT, UsageError} from './errors.js'
export {type Listing, listing} from './services/listing.js'
