/** One line of `commerce doctor`, and how the checks make one. */
export type CheckStatus = 'ok' | 'warn' | 'fail'

export interface Check {
  name: string
  status: CheckStatus
  detail: string
  /** What to do about it; null when nothing needs doing. */
  fix: string | null
}

export const ok = (name: string, detail: string): Check => ({detail, fix: null, name, status: 'ok'})
export const warn = (name: string, detail: string, fix: string): Check => ({detail, fix, name, status: 'warn'})
export const fail = (name: string, detail: string, fix: string): Check => ({detail, fix, name, status: 'fail'})
