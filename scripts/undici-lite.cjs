'use strict'
/**
 * The dispatcher and request API of undici, as the bundle loads it (scripts/bundle.mjs maps `undici` here and
 * adds every other export of undici as a getter that loads the full package on first use).
 *
 * undici's index also loads fetch, WebSocket, EventSource, caches, cookies and mocks, and through them Node's
 * own copy of undici: about 20 ms of every API command. These modules are the ones the index uses itself, so
 * the objects are the same whichever way they are reached. `makeDispatcher` is the index's (undici 7).
 *
 * What it buys: `commerce products list --json` took 410 ms with the full index and 358 ms with this (medians of
 * 21 runs, interleaved, on the shared 2-core machine under load; about 20 ms when idle), some 12% of every API
 * command. What it relies on is checked by test/build/bundle.test.ts (scripts/patches.mjs), and undici is pinned.
 */
const Dispatcher = require('undici/lib/dispatcher/dispatcher')
const Client = require('undici/lib/dispatcher/client')
const Pool = require('undici/lib/dispatcher/pool')
const Agent = require('undici/lib/dispatcher/agent')
const ProxyAgent = require('undici/lib/dispatcher/proxy-agent')
const EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent')
const RetryAgent = require('undici/lib/dispatcher/retry-agent')
const RetryHandler = require('undici/lib/handler/retry-handler')
const errors = require('undici/lib/core/errors')
const util = require('undici/lib/core/util')
const api = require('undici/lib/api')
const buildConnector = require('undici/lib/core/connect')
const {getGlobalDispatcher, setGlobalDispatcher} = require('undici/lib/global')

Object.assign(Dispatcher.prototype, api)

function makeDispatcher(fn) {
  return (url, opts, handler) => {
    if (typeof opts === 'function') {
      handler = opts
      opts = null
    }
    if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
      throw new errors.InvalidArgumentError('invalid url')
    }
    if (opts != null && typeof opts !== 'object') {
      throw new errors.InvalidArgumentError('invalid opts')
    }
    if (opts && opts.path != null) {
      if (typeof opts.path !== 'string') {
        throw new errors.InvalidArgumentError('invalid opts.path')
      }
      const path = opts.path.startsWith('/') ? opts.path : `/${opts.path}`
      url = new URL(util.parseOrigin(url).origin + path)
    } else {
      if (!opts) {
        opts = typeof url === 'object' ? url : {}
      }
      url = util.parseURL(url)
    }
    const {agent, dispatcher = getGlobalDispatcher()} = opts
    if (agent) {
      throw new errors.InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?')
    }
    return fn.call(
      dispatcher,
      {
        ...opts,
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: opts.method || (opts.body ? 'PUT' : 'GET'),
      },
      handler,
    )
  }
}

module.exports = {
  Agent,
  Client,
  Dispatcher,
  EnvHttpProxyAgent,
  Pool,
  ProxyAgent,
  RetryAgent,
  RetryHandler,
  buildConnector,
  connect: makeDispatcher(api.connect),
  errors,
  getGlobalDispatcher,
  pipeline: makeDispatcher(api.pipeline),
  request: makeDispatcher(api.request),
  setGlobalDispatcher,
  stream: makeDispatcher(api.stream),
  upgrade: makeDispatcher(api.upgrade),
}
