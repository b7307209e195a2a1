/**
 * What `commerce mcp` offers to read before acting: the OpenAPI document (`commerce api --spec`, the one the sandbox
 * serves) and the documentation pages shipped in the package (docs/*.md), as MCP resources.
 */
import {readdirSync} from 'node:fs'
import {join} from 'node:path'

import {readOwnFile, readOwnFileSync} from '../../domain/own-file.js'
import {serviceDescription} from '../raw-request.js'

/** A docs page is a few dozen kilobytes: a bound that no page reaches. */
const PAGE_BYTES = 1024 * 1024

export interface Resource {
  uri: string
  name: string
  title: string
  description: string
  mimeType: string
}

const OPENAPI_URI = 'commerce://openapi.json'
const DOCS_PREFIX = 'commerce://docs/'

/** The pages of `root`/docs, by name (`errors.md`): the package's own, nothing else. */
function pages(root: string): string[] {
  try {
    return readdirSync(join(root, 'docs'), {withFileTypes: true})
      .filter((e) => e.isFile() && /^[a-z][a-z0-9-]*\.md$/.test(e.name))
      .map((e) => e.name)
      .sort()
  } catch {
    return []
  }
}

/** The first heading of a page, its title. */
function titleOf(text: string, fallback: string): string {
  return /^# (.+)$/m.exec(text)?.[1]?.trim() ?? fallback
}

export function listResources(root: string): Resource[] {
  return [
    {
      description: "The service's operations, records and errors as an OpenAPI 3.1 document: what each tool sends and reads.",
      mimeType: 'application/json',
      name: 'openapi.json',
      title: 'The Commerce Service API (OpenAPI)',
      uri: OPENAPI_URI,
    },
    ...pages(root).map((name) => ({
      description: `The commerce CLI's documentation: ${name}.`,
      mimeType: 'text/markdown',
      name,
      title: titleOf(readOwnFileSync(join(root, 'docs', name), PAGE_BYTES), name),
      uri: `${DOCS_PREFIX}${name}`,
    })),
  ]
}

/** A resource's text, or undefined for a URI that names none (only the pages listed are read: no path is built from it). */
export async function readResource(root: string, uri: string): Promise<{mimeType: string; text: string} | undefined> {
  if (uri === OPENAPI_URI) return {mimeType: 'application/json', text: JSON.stringify(await serviceDescription())}
  const name = uri.startsWith(DOCS_PREFIX) ? uri.slice(DOCS_PREFIX.length) : undefined
  if (name === undefined || !pages(root).includes(name)) return undefined
  return {mimeType: 'text/markdown', text: await readOwnFile(join(root, 'docs', name), PAGE_BYTES)}
}
