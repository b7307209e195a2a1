/**
 * One case rule everywhere: a currency is accepted in any case in import rows (CSV and JSONL) and fixtures files,
 * as on the command line (`--currency usd`), and sent as the service names it.
 */
import {describe, expect, it} from 'vitest'

import {orderFromCsv, orderFromJson} from '../../src/bulk/rows.js'
import {parseScenario} from '../../src/domain/scenario.js'
import {canonicalCurrency} from '../../src/domain/validate.js'

describe('currency case', () => {
  it('usd, Usd and USD are USD in CSV and JSONL rows and in a fixtures order; an unknown one is still refused', () => {
    for (const currency of ['usd', 'Usd', 'USD']) {
      const csv = orderFromCsv({currency, customer_id: '1', items: '2:1'})
      expect(csv.errors).toEqual({})
      expect(csv.body.currency).toBe('USD')
      const json = orderFromJson({currency, customer_id: 1, items: [{product_id: 2, quantity: 1}]})
      expect(json.errors).toEqual({})
      expect(json.body.currency).toBe('USD')
      const [entry] = parseScenario({orders: {first: {currency, customer_id: 1, items: [{product_id: 2}]}}})
      expect(entry.body.currency).toBe('USD')
    }
    expect(orderFromCsv({currency: 'usdx', customer_id: '1', items: '2:1'}).errors.currency).toEqual([
      expect.stringContaining('must be one of USD, EUR, GBP'),
    ])
    expect(canonicalCurrency(5)).toBe(5)
  })
})
