/** The product and webhook operations of api.ts. */
import type {Currency, OperationId} from '../domain/schema.js'
import {CURRENCIES} from '../domain/schema.js'
import {checkOneOf, hasErrors, parseId, validateWebhookCreate} from '../domain/validate.js'
import {checkSandboxEvents, createWebhook, type Core} from './core.js'
import {type Reply, validationError} from './http.js'
import {CATALOGUE, priced, product} from './seed.js'
import {pageEnvelope, webhookView} from './views.js'
import type {OpHandler} from './api-routes.js'
import {limited, notFound, optional, paging} from './api-query.js'

export function productHandlers(core: Core): Pick<Record<OperationId, OpHandler>, 'listProducts' | 'searchProducts' | 'getProduct'> {
  const productsPage = (query: URLSearchParams, q: string | undefined): Reply => {
    const currency = optional(query, 'currency')
    const {page, perPage} = paging(query, {currency, q})
    // Every word, in any order, as a substring of the name or the description: "tea pot" finds "Teapot 1 l".
    const words = (q ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== '')
    const matches = CATALOGUE.filter((p) => {
      const text = `${p.name}\n${p.description}`.toLowerCase()
      return words.every((w) => text.includes(w))
    }).reverse()
    const data = matches.slice((page - 1) * perPage, page * perPage).map((p) => priced(p, currency as Currency | undefined))
    return {body: pageEnvelope(data, page, perPage, matches.length), status: 200}
  }

  return {
    listProducts: ({request, version}) => {
      const headers = version === 'v1' ? limited(core.limits.v1Products, request.req.socket.remoteAddress ?? '?', 'product list requests') : {}
      return {...productsPage(request.query, optional(request.query, 'q')), headers}
    },

    searchProducts: ({request: {query}}) => {
      const q = optional(query, 'q')
      if (q === undefined || q.trim() === '') throw validationError({q: ['is required']})
      return productsPage(query, q)
    },

    getProduct: ({request: {params, query}}) => {
      const id = parseId(params.product)
      const p = id === undefined ? undefined : product(id)
      if (!p) throw notFound('product', params.product)
      const currency = optional(query, 'currency')
      const problem = currency === undefined ? undefined : checkOneOf(currency, CURRENCIES)
      if (problem) throw validationError({currency: [problem]})
      return {body: priced(p, currency as Currency | undefined), status: 200}
    },
  }
}

export function webhookHandlers(core: Core): Pick<Record<OperationId, OpHandler>, 'listWebhooks' | 'createWebhook'> {
  const {store} = core
  return {
    listWebhooks: () => {
      const data = store.listWebhooks().map(webhookView)
      // No parameters: every endpoint on page 1.
      return {body: pageEnvelope(data, 1, Math.max(1, data.length), data.length), status: 200}
    },

    createWebhook: async ({request}) => {
      const body = await request.body()
      // Event names are the sandbox's to narrow: it sends SANDBOX_EVENTS (the CLI accepts any name).
      const errors = validateWebhookCreate(body, true, checkSandboxEvents)
      if (hasErrors(errors)) throw validationError(errors)
      const record = createWebhook(core, body as {url: string; events: string[]})
      return {body: {...webhookView(record), signing_secret: record.signing_secret}, status: 201}
    },
  }
}
