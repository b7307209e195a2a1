/**
 * A one-line spinner on stderr, drawn only where IOStreams.canAnimate() allows; elsewhere it prints
 * nothing (a script's stderr stays quiet), except that `stop(final)` can still report a final line.
 */
import type {IOStreams} from './streams.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

export class Spinner {
  private timer?: NodeJS.Timeout
  private frame = 0
  private text = ''

  constructor(private readonly io: IOStreams) {}

  start(text: string): this {
    this.text = text
    if (!this.io.canAnimate() || this.timer) return this
    this.io.setStatus(this)
    this.timer = setInterval(() => this.draw(), 80)
    this.timer.unref()
    this.draw()
    return this
  }

  update(text: string): void {
    this.text = text
  }

  /** Erases the line (so other output is not interleaved with it). */
  clear(): void {
    if (this.timer) this.io.stderr.write('\r\u001B[2K')
  }

  stop(): void {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = undefined
    this.clear()
    this.io.setStatus(undefined)
  }

  private draw(): void {
    this.frame = (this.frame + 1) % FRAMES.length
    this.io.stderr.write(`\r\u001B[2K${this.io.chalk.cyan(FRAMES[this.frame])} ${this.text}`)
  }
}
