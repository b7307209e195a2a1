import {describe, expect, test} from 'vitest'

import {isUuid} from '../../src/domain/validate.js'
import {canonicalJson} from '../../src/domain/json.js'
import {ORDER_IMPORT_NAMESPACE, orderRowKey} from '../../src/bulk/uuid.js'
import {uuidv5} from '../../src/domain/idempotency.js'

describe('uuidv5', () => {
  test('matches the RFC 9562 test vector (A.4: DNS namespace, www.example.com)', () => {
    expect(uuidv5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2')
  })

  test('sets version 5 and the RFC variant, and is a valid UUID for the service', () => {
    const id = uuidv5('anything', ORDER_IMPORT_NAMESPACE)
    expect(id[14]).toBe('5')
    expect('89ab').toContain(id[19])
    expect(isUuid(id)).toBe(true)
  })

  test('refuses a namespace that is not a UUID', () => {
    expect(() => uuidv5('x', 'not-a-uuid')).toThrow(/not a UUID/)
  })
})

describe('order row keys', () => {
  const sha = 'a'.repeat(64)
  const body = {currency: 'USD', customer_id: 1, items: [{product_id: 2, quantity: 3}]}

  test('are stable: the same file, line and row give the same key, whatever the key order of the row', () => {
    const reordered = {items: [{quantity: 3, product_id: 2}], customer_id: 1, currency: 'USD'}
    expect(orderRowKey(sha, 2, body)).toBe(orderRowKey(sha, 2, reordered))
    expect(canonicalJson(reordered)).toBe('{"currency":"USD","customer_id":1,"items":[{"product_id":2,"quantity":3}]}')
  })

  test('differ for identical rows on different lines, and for the same row in another file', () => {
    expect(orderRowKey(sha, 2, body)).not.toBe(orderRowKey(sha, 3, body))
    expect(orderRowKey(sha, 2, body)).not.toBe(orderRowKey('b'.repeat(64), 2, body))
  })
})
