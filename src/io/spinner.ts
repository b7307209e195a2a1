/**
 * A one-line spinner on stderr, drawn only where IOStreams.canAnimate() allows; elsewhere it prints
 * nothing (a script's stderr stays quiet), except that `stop(final)` can still report a final line.
 */
import type {IOStreams} from './streams.js'
import {fitCells} from './width.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

export class Spinner {
  private timer?: NodeJS.Timeout
  private frame = 0
  private text: string | (() => string) = ''
  private drawn = false

  constructor(private readonly io: IOStreams) {}

  /** `text` may be a function, called on every frame: a status that changes by itself (a countdown). */
  start(text: string | (() => string)): this {
    this.text = text
    if (!this.io.canAnimate() || this.timer) return this
    this.timer = setInterval(() => this.draw(), 80)
    this.timer.unref()
    this.draw()
    return this
  }

  update(text: string): void {
    this.text = text
  }

  /** Erases the line (so other output is not interleaved with it), if something of it is on the screen. */
  clear(): void {
    if (!this.drawn) return
    this.io.stderr.write('\r\u001B[2K')
    this.drawn = false
  }

  stop(): void {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = undefined
    // Erased whatever else holds the line now: a stopped spinner never stays on the screen.
    this.clear()
    this.io.releaseStatus(this)
  }

  private draw(): void {
    if (!this.io.claimStatus(this)) return
    this.frame = (this.frame + 1) % FRAMES.length
    // Cut to the window: a line that wrapped could not be redrawn in place.
    const text = fitCells(typeof this.text === 'function' ? this.text() : this.text, this.io.width('stderr') - 3)
    this.io.stderr.write(`\r\u001B[2K${this.io.chalk.cyan(FRAMES[this.frame])} ${text}`)
    this.drawn = true
  }
}
