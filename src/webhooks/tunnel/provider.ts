/** What a tunnel provider tells startTunnel: how to run its binary and where to find the public URL. */
export interface ProviderPlan {
  args: string[]
  /** The public URL if this line of output carries it (may also learn things from the line). */
  urlFromLine(line: string): string | undefined
  /** Asks the running binary for its public URL; undefined while it has none. */
  poll(): Promise<string | undefined>
  /** How a line of output reads in an error message (e.g. the message of a JSON log line). */
  displayLine?(line: string): string
}

export interface PlanOptions {
  env: NodeJS.ProcessEnv
  ngrokApiUrl?: string
}

export interface ProviderSpec {
  binary: string
  /** The end of the "not installed" message. */
  installHint: string
  plan(port: number, options: PlanOptions): Promise<ProviderPlan>
}
