/**
 * In-memory stand-ins for the service's customer and order creation, behind the function interfaces the bulk
 * senders take (the real HTTP wiring is the lead's, tested end to end against the sandbox). Each call is
 * processed when made and answered a tick later, as a server answers after processing; `crashAfter(n)` makes
 * the n-th call the last one to reach the service, as if the CLI were killed right after sending it.
 */
import type {CustomerApi, OrderApi} from '../../src/bulk/senders.js'

export class Crash extends Error {
  constructor() {
    super('killed')
  }
}

class Service {
  calls = 0
  private remaining = Number.POSITIVE_INFINITY
  private onCrash?: () => void
  constructor(protected readonly now: () => number) {}

  /** The n-th call from now is processed, then `onCrash` runs (e.g. to snapshot the journal) and nothing else gets through. */
  crashAfter(n: number, onCrash: () => void): void {
    this.remaining = n
    this.onCrash = onCrash
  }

  heal(): void {
    this.remaining = Number.POSITIVE_INFINITY
  }

  protected async call<T>(process: () => T): Promise<T> {
    if (this.remaining <= 0) throw new Crash()
    this.calls++
    const result = process()
    if (--this.remaining === 0) this.onCrash?.()
    await new Promise((r) => setImmediate(r))
    if (this.remaining <= 0) throw new Crash() // the client died before reading the answer
    return result
  }
}

export interface StoredCustomer {
  id: number
  email: string
  name: string
  created_at: string
  metadata?: Record<string, unknown>
}

export class FakeCustomers extends Service {
  readonly customers = new Map<string, StoredCustomer>()
  creates = 0
  updates = 0
  private nextId = 1

  seed(email: string, name: string, createdAt: number): StoredCustomer {
    const c = {created_at: new Date(createdAt).toISOString(), email, id: this.nextId++, name}
    this.customers.set(email, c)
    return c
  }

  api(options: {search?: boolean} = {}): CustomerApi {
    const api: CustomerApi = {
      create: (body) =>
        this.call(() => {
          this.creates++
          if (this.customers.has(body.email)) return {status: 'email_taken' as const}
          if (body.name === 'REJECT') return {reason: 'name is reserved', status: 'rejected' as const}
          const c = this.seed(body.email, body.name, this.now())
          return {id: c.id, status: 'created' as const}
        }),
    }
    if (options.search !== false) {
      api.findByEmail = (email) => this.call(() => this.customers.get(email))
      api.update = (id, body) =>
        this.call(() => {
          this.updates++
          const c = [...this.customers.values()].find((x) => x.id === id)!
          Object.assign(c, body)
          return {status: 'updated' as const}
        })
    }
    return api
  }
}

export class FakeOrders extends Service {
  readonly orders: Array<{id: number; key: string}> = []
  private readonly byKey = new Map<string, number>()

  api(): OrderApi {
    return {
      create: (body, key) =>
        this.call(() => {
          if (body.customer_id === 999) return {reason: 'customer_id 999 does not exist', status: 'rejected' as const}
          const replay = this.byKey.get(key)
          if (replay !== undefined) return {id: replay, status: 'created' as const}
          const id = this.orders.length + 1
          this.orders.push({id, key})
          this.byKey.set(key, id)
          return {id, status: 'created' as const}
        }),
    }
  }
}
