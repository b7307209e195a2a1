/** The base URL, path and header rules (src/domain/url.ts) and their usage errors (src/api/base-url.ts). */
import {describe, expect, it} from 'vitest'

import {checkBaseUrl, checkHeaderValue, checkRequestPath} from '../../src/api/base-url.js'
import {checkBaseUrlText, displayUrl, dotSegmentProblem, headerValueProblem, isLoopbackHost} from '../../src/domain/url.js'
import {UsageError} from '../../src/errors.js'

describe('isLoopbackHost', () => {
  it('localhost, *.localhost, 127.0.0.0/8 and ::1; nothing else', () => {
    for (const host of ['localhost', 'LOCALHOST', 'api.localhost', 'localhost.', '127.0.0.1', '127.1.2.3', '[::1]', '::1'])
      expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ['example.com', 'localhost.example.com', '128.0.0.1', '10.0.0.1', '0.0.0.0', '[::]', '127.0.0.1.nip.io'])
      expect(isLoopbackHost(host), host).toBe(false)
  })
})

describe('checkBaseUrlText', () => {
  const problem = (url: string, options = {}) => {
    const r = checkBaseUrlText(url, options)
    return 'problem' in r ? r.problem : undefined
  }

  it('keeps a good URL, without trailing slashes', () => {
    expect(checkBaseUrlText('https://api.example.com/')).toEqual({url: 'https://api.example.com'})
    expect(checkBaseUrlText('https://api.example.com/prefix//')).toEqual({url: 'https://api.example.com/prefix'})
    expect(checkBaseUrlText('http://127.0.0.1:4242')).toEqual({url: 'http://127.0.0.1:4242'})
  })

  it('refuses userinfo without ever showing the password', () => {
    for (const url of ['https://ana:hunter2@api.example.com', 'https://hunter2@api.example.com', 'http://ana:hunter2@127.0.0.1:1']) {
      const p = problem(url)
      expect(p?.kind, url).toBe('invalid')
      expect(p?.message).toMatch(/user name or password/)
      expect(p?.message).not.toContain('hunter2')
    }
  })

  it('refuses a query or a fragment, even an empty one', () => {
    for (const url of ['https://api.example.com?', 'https://api.example.com/#', 'https://api.example.com/?a=1', 'https://api.example.com/#x'])
      expect(problem(url)?.message, url).toMatch(/query \(\?\) or fragment \(#\)/)
  })

  it('refuses other schemes and text that is not a URL', () => {
    expect(problem('ftp://api.example.com')?.message).toMatch(/https:\/\/ or http:\/\//)
    expect(problem('api.example.com')?.message).toMatch(/not a valid URL/)
  })

  it('plain http:// to a host that is not loopback only with the opt-in', () => {
    expect(problem('http://api.example.com')).toMatchObject({kind: 'insecure'})
    expect(problem('http://10.0.0.5:8080')).toMatchObject({kind: 'insecure'})
    expect(checkBaseUrlText('http://api.example.com', {allowInsecureHttp: true})).toEqual({url: 'http://api.example.com'})
    expect(problem('http://localhost:4242')).toBeUndefined()
    expect(problem('https://api.example.com')).toBeUndefined()
  })

  it('displayUrl hides userinfo, also in text that is not a URL', () => {
    expect(displayUrl('https://ana:hunter2@api.example.com/x')).toBe('https://***@api.example.com/x')
    expect(displayUrl('https://api.example.com/x')).toBe('https://api.example.com/x')
    expect(displayUrl('not a url ana:hunter2@host')).toBe('***@host')
  })
})

describe('dotSegmentProblem', () => {
  it('a . or .. segment, plain or percent-encoded, in the path (not the query)', () => {
    for (const path of ['/api/../../admin', '/api/v2/./customers', '/customers/..', '/api/v2/%2e%2e/admin', '/api/v2/.%2E/x', '/api/v2/%2E/x'])
      expect(dotSegmentProblem(path), path).toMatch(/segment/)
    for (const path of ['/api/v2/customers', '/customers/12', '/products?q=..', '/files/a..b', '/x/...'])
      expect(dotSegmentProblem(path), path).toBeUndefined()
  })
})

describe('headerValueProblem', () => {
  it('CR, LF, NUL and other control characters, and characters past Latin-1; a tab is fine', () => {
    expect(headerValueProblem('a\r\nb')).toBe('contains a carriage return (CR)')
    expect(headerValueProblem('a\nb')).toBe('contains a line feed (LF)')
    expect(headerValueProblem('a\u0000b')).toBe('contains a control character (U+0000)')
    expect(headerValueProblem('a\u007Fb')).toBe('contains a control character (U+007F)')
    expect(headerValueProblem('Jos\u00E9')).toBeUndefined()
    expect(headerValueProblem('\u20AC')).toBe('contains a character (U+20AC) outside Latin-1')
    expect(headerValueProblem('Bearer abc\tdef')).toBeUndefined()
  })
})

describe('the usage errors (exit 2)', () => {
  it('name the source, never the value', () => {
    const error = (() => {
      try {
        checkHeaderValue('COMMERCE_ACCESS_TOKEN', 'tok-SECRET\r\n')
      } catch (e) {
        return e
      }
    })() as UsageError
    expect(error).toBeInstanceOf(UsageError)
    expect(error.exitCode).toBe(2)
    expect(error.message).toBe(
      'The value of COMMERCE_ACCESS_TOKEN contains a carriage return (CR), which an HTTP header cannot carry. Nothing was sent.',
    )
    expect(() => checkRequestPath('/api/../admin')).toThrow(UsageError)
    expect(() => checkBaseUrl('http://api.example.com', {allowInsecureHttp: false, hintFlags: ' --profile lab'})).toThrow(/plain http/)
    expect(checkBaseUrl('http://api.example.com')).toBe('http://api.example.com')
  })
})
