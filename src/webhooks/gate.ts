/**
 * Forward slots: at most `size` holders at once, others wait in arrival order. A waiter gives up at its deadline
 * (the sender would have given up too): `acquire` then resolves false.
 */
export class Gate {
  private active = 0
  private readonly waiting: Array<(granted: boolean) => void> = []
  constructor(private readonly size: number) {}

  acquire(deadlineMs: number): Promise<boolean> {
    if (this.active < this.size) {
      this.active++
      return Promise.resolve(true)
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(grant)
        if (i >= 0) this.waiting.splice(i, 1)
        resolve(false)
      }, deadlineMs)
      const grant = (granted: boolean) => {
        clearTimeout(timer)
        resolve(granted)
      }
      this.waiting.push(grant)
    })
  }

  release(): void {
    const next = this.waiting.shift()
    if (next)
      next(true) // the slot passes on; `active` stays
    else this.active--
  }
}
