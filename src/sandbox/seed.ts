/**
 * Deterministic seed data: the product catalogue (fixed, in code, never persisted), the two key pairs of a
 * new data store, and the optional demo customers and orders.
 */
import {randomBytes} from 'node:crypto'

import type {Currency, CustomerStatus, OrderStatus, Product} from '../domain/schema.js'
import {SCOPES} from '../domain/schema.js'
import {convertPrice} from './decisions.js'
import type {KeyPair, OrderLine, Store} from './record-store.js'

export interface CatalogueProduct extends Product {
  description: string
}

type Row = [name: string, description: string, price: number, currency: Currency, inStock: boolean]

const ROWS: Row[] = [
  ['Espresso Beans 1 kg', 'Dark roast whole coffee beans', 2450, 'USD', true],
  ['Ceramic Pour-Over Dripper', 'Hand-glazed dripper for single cups', 3200, 'USD', true],
  ['Paper Filters (100)', 'Unbleached paper filters for pour-over', 650, 'USD', true],
  ['Gooseneck Kettle', 'Stainless steel kettle with thermometer', 5900, 'USD', false],
  ['Burr Grinder', 'Conical burr grinder, 40 settings', 12900, 'USD', true],
  ['Travel Mug', 'Insulated stainless mug, 350 ml', 2100, 'USD', true],
  ['Cold Brew Jar', 'Glass jar with mesh filter, 1.5 l', 2800, 'USD', true],
  ['Barista Apron', 'Waxed canvas apron with leather straps', 4500, 'USD', true],
  ['Moka Pot', 'Aluminium stovetop espresso maker, 6 cups', 3600, 'EUR', true],
  ['Milk Frother', 'Handheld battery frother', 1500, 'EUR', true],
  ['Espresso Cups (set of 4)', 'Porcelain cups with saucers', 2900, 'EUR', true],
  ['Tamper 58 mm', 'Stainless steel tamper with walnut handle', 3900, 'EUR', false],
  ['Knock Box', 'Rubber-lined box for spent grounds', 2400, 'EUR', true],
  ['Scale with Timer', 'Coffee scale, 0.1 g resolution', 4900, 'EUR', true],
  ['Decaf Beans 500 g', 'Swiss water process decaf beans', 1400, 'EUR', true],
  ['Tea Sampler', 'Twelve loose-leaf teas in tins', 3300, 'GBP', true],
  ['Teapot 1 l', 'Cast iron teapot with infuser', 4800, 'GBP', true],
  ['Biscuit Tin', 'Shortbread biscuits, 400 g', 900, 'GBP', true],
  ['Linen Tea Towel', 'Printed linen towel', 1100, 'GBP', true],
  ['Honey Jar 340 g', 'Raw wildflower honey', 850, 'GBP', false],
  ['Loose Leaf Earl Grey', 'Black tea with bergamot, 250 g', 1250, 'GBP', true],
  ['Gift Card 25', 'Gift card worth 25 in the store currency', 2500, 'USD', true],
  ['Gift Card 25 EUR', 'Gift card worth 25 euros', 2500, 'EUR', true],
  ['Gift Card 25 GBP', 'Gift card worth 25 pounds', 2500, 'GBP', true],
]

/** Ids 1..24, in this order. */
export const CATALOGUE: readonly CatalogueProduct[] = ROWS.map(([name, description, price, currency, inStock], i) => ({
  id: i + 1,
  name,
  description,
  price,
  currency,
  in_stock: inStock,
}))

const PRODUCTS_BY_ID = new Map(CATALOGUE.map((p) => [p.id, p]))

export function product(id: number): CatalogueProduct | undefined {
  return PRODUCTS_BY_ID.get(id)
}

/** A product as shown, its price converted when `currency` is given. */
export function priced(p: CatalogueProduct, currency?: Currency): CatalogueProduct {
  if (!currency || currency === p.currency) return p
  return {...p, currency, price: convertPrice(p.price, p.currency, currency)}
}

/** Two key pairs: every scope, and `customers:read` only. Fresh random values for each new data store. */
export function newKeyPairs(): KeyPair[] {
  const hex = (n: number) => randomBytes(n).toString('hex')
  return [
    {key_id: `sbx_all_${hex(6)}`, key_secret: `sbx_secret_${hex(24)}`, scopes: [...SCOPES]},
    {key_id: `sbx_read_${hex(6)}`, key_secret: `sbx_secret_${hex(24)}`, scopes: ['customers:read']},
  ]
}

const DEMO_PEOPLE: Array<[name: string, status: CustomerStatus, plan: string, city: string, country: string]> = [
  ['Ada Lovelace', 'active', 'pro', 'London', 'GB'],
  ['Grace Hopper', 'active', 'enterprise', 'New York', 'US'],
  ['Alan Turing', 'invited', 'free', 'Manchester', 'GB'],
  ['Katherine Johnson', 'active', 'pro', 'Hampton', 'US'],
  ['Emmy Noether', 'active', 'free', 'Erlangen', 'DE'],
  ['Edsger Dijkstra', 'archived', 'pro', 'Rotterdam', 'NL'],
  ['Barbara Liskov', 'active', 'enterprise', 'Boston', 'US'],
  ['Marie Curie', 'invited', 'free', 'Paris', 'FR'],
  ['John von Neumann', 'active', 'pro', 'Princeton', 'US'],
  ['Hedy Lamarr', 'active', 'free', 'Vienna', 'AT'],
  ['Tim Berners-Lee', 'active', 'pro', 'Geneva', 'CH'],
  ['Margaret Hamilton', 'active', 'enterprise', 'Cambridge', 'US'],
]

const CURRENCY_OF_COUNTRY: Record<string, Currency> = {GB: 'GBP', US: 'USD'}
const DEMO_STATUSES: OrderStatus[] = ['pending', 'paid', 'shipped', 'pending', 'paid']

const DAY_MS = 86_400_000

/**
 * Twelve customers (each with an address), one a day over the last twelve days, and two or three orders for
 * each active one placed an hour apart, all deterministic but for the dates.
 */
export function seedDemoData(store: Store, now: number): void {
  const iso = (ms: number) => new Date(ms).toISOString()
  DEMO_PEOPLE.forEach(([name, status, plan, city, country], i) => {
    const joined = now - (DEMO_PEOPLE.length - i) * DAY_MS
    const customer = store.addCustomer({
      addresses: [{id: store.newAddressId(), line1: `${i + 1} Demo Street`, city, postal_code: `${10_000 + i * 7}`, country}],
      created_at: iso(joined),
      email: `${name.toLowerCase().replace(/[^a-z]+/g, '.')}@example.com`,
      metadata: {plan},
      name,
      status,
    })
    if (status !== 'active') return
    const currency = CURRENCY_OF_COUNTRY[country] ?? 'EUR'
    for (let n = 0; n < 2 + (i % 2); n++) {
      const items: OrderLine[] = [1, 2].map((k) => {
        const p = CATALOGUE[(i * 5 + n * 3 + k * 7) % CATALOGUE.length]
        return {product_id: p.id, quantity: k, unit_price: priced(p, currency).price}
      })
      const total = items.reduce((sum, it) => sum + it.unit_price * it.quantity, 0)
      const order = store.addOrder({
        amount_refunded: 0,
        currency,
        customer_id: customer.id,
        items,
        placed_at: iso(joined + (n + 1) * 3_600_000),
        refunds: [],
        status: 'pending',
        total,
      })
      store.setOrderStatus(order, DEMO_STATUSES[(i + n) % DEMO_STATUSES.length])
    }
  })
}

/**
 * `sandbox start --history DAYS`: an account with a past, for `orders stats` and `customers stats` to draw. Over the
 * last DAYS days (the sandbox's clock decides when "now" is), a few new customers a day and a few orders a day at
 * varied hours, in the three currencies, most paid or shipped, some refunded in whole or in part. Deterministic but
 * for the dates: the same DAYS gives the same account.
 */
export function seedHistory(store: Store, now: number, days: number): void {
  let state = 0x2545f491
  const random = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0
    return state / 0x1_0000_0000
  }
  const iso = (ms: number) => new Date(ms).toISOString()
  const currencies = ['USD', 'EUR', 'GBP'] as const
  const customers: number[] = []
  let n = 0
  for (let d = days - 1; d >= 0; d--) {
    const dayStart = now - (d + 1) * DAY_MS
    // Busier towards the present, with weekly swings: something for a chart to show.
    const newCustomers = 1 + Math.floor(random() * 3)
    for (let c = 0; c < newCustomers; c++) {
      n++
      const customer = store.addCustomer({
        addresses: [],
        created_at: iso(dayStart + (c + 1) * 3 * 3_600_000),
        email: `history.${n}@example.com`,
        metadata: {plan: random() < 0.3 ? 'pro' : 'free'},
        name: `History Customer ${n}`,
        status: random() < 0.15 ? 'invited' : 'active',
      })
      if (customer.status === 'active') customers.push(customer.id)
    }
    const orders = Math.round(2 + random() * 4 + ((days - d) / days) * 4 + (d % 7 < 2 ? 2 : 0))
    for (let o = 0; o < orders && customers.length > 0; o++) {
      const currency = currencies[Math.floor(random() * currencies.length)]
      const items: OrderLine[] = [1, 2].slice(0, 1 + Math.floor(random() * 2)).map((k) => {
        const p = CATALOGUE[Math.floor(random() * CATALOGUE.length)]
        return {product_id: p.id, quantity: k, unit_price: priced(p, currency).price}
      })
      const total = items.reduce((sum, it) => sum + it.unit_price * it.quantity, 0)
      const placed = dayStart + Math.floor(((o + 0.5) / orders) * DAY_MS)
      const order = store.addOrder({
        amount_refunded: 0,
        currency,
        customer_id: customers[Math.floor(random() * customers.length)],
        items,
        placed_at: iso(placed),
        refunds: [],
        status: 'pending',
        total,
      })
      const roll = random()
      if (d === 0 && roll < 0.4) continue // today's may still be pending
      store.setOrderStatus(order, roll < 0.7 ? 'paid' : 'shipped')
      const refund = random()
      if (refund < 0.06) store.addRefund(order, {amount: total, created_at: iso(placed + 3_600_000), reason: 'history: returned'})
      else if (refund < 0.12 && total > 1)
        store.addRefund(order, {amount: Math.floor(total / 2), created_at: iso(placed + 3_600_000), reason: 'history: partial'})
    }
  }
}
