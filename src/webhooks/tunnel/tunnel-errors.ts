export type TunnelProvider = 'cloudflared' | 'ngrok'

export class TunnelError extends Error {
  override name = 'TunnelError'
  constructor(
    message: string,
    readonly provider: TunnelProvider,
  ) {
    super(message)
  }
}

/** The binary is not on PATH; the message says how to install it. */
export class TunnelNotInstalledError extends TunnelError {
  override name = 'TunnelNotInstalledError'
}

/** The tunnel exited, or stayed silent past the timeout, before giving a public URL. */
export class TunnelStartError extends TunnelError {
  override name = 'TunnelStartError'
  /** The binary's process, ended before this was thrown. */
  pid?: number
  constructor(
    message: string,
    provider: TunnelProvider,
    readonly lastLines: string[],
  ) {
    super(message, provider)
  }
}
