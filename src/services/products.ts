/** Products: public operations (no token is ever sent). */
import type {ApiClient} from '../api/client.js'
import {resourceOf} from '../api/http-errors.js'
import type {PageOptions} from '../api/paginate.js'
import type {ApiVersion, Currency, Product} from '../domain/schema.js'
import {type Listing, listing} from './listing.js'

export interface ListProductsOptions extends PageOptions {
  currency?: Currency
  search?: string
  version: ApiVersion
}

export function listProducts(client: ApiClient, options: ListProductsOptions): Listing<Product> {
  return listing<Product>(
    client,
    {auth: false, method: 'GET', path: '/products', query: {currency: options.currency, q: options.search}, version: options.version},
    options,
  )
}

/** v2 lists with `q`; v1 has its own search operation. */
export function searchProducts(client: ApiClient, text: string, options: ListProductsOptions): Listing<Product> {
  if (options.version === 'v1')
    return listing<Product>(
      client,
      {auth: false, method: 'GET', path: '/products/search', query: {currency: options.currency, q: text}, version: 'v1'},
      options,
    )
  return listProducts(client, {...options, search: text})
}

/** v2 only. */
export async function getProduct(client: ApiClient, id: number, options: {currency?: Currency}): Promise<Product> {
  return resourceOf<Product>(
    await client.request({auth: false, method: 'GET', path: `/products/${id}`, query: {currency: options.currency}, version: 'v2'}),
    'a product',
  )
}
