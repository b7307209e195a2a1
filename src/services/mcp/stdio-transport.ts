/**
 * The stdio transport of `commerce mcp`, in place of the SDK's StdioServerTransport (same framing: its ReadBuffer and
 * serializeMessage), for what that one lacks:
 * - backpressure: at most `limit` requests are being served at once, and nothing more is read while stdout has not
 *   drained (a client that stops reading stops the server reading, instead of its memory growing with every answer
 *   held for it); one 'drain' listener however many answers wait, where the SDK's adds one per answer;
 * - an end that answers: when the client closes its end, or on `stop()` (SIGTERM), what was read is answered before
 *   the transport closes; after `graceMs`, a call still running is answered with an error rather than left unanswered.
 */
import type {Readable, Writable} from 'node:stream'

import {ReadBuffer, serializeMessage} from '@modelcontextprotocol/sdk/shared/stdio.js'
import type {Transport} from '@modelcontextprotocol/sdk/shared/transport.js'
import type {JSONRPCMessage, RequestId} from '@modelcontextprotocol/sdk/types.js'

/** Requests served at once: more are left unread (in the pipe) until one is answered. */
export const MAX_IN_FLIGHT = 8

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & {id: RequestId; method: string} => 'method' in m && 'id' in m
const isAnswer = (m: JSONRPCMessage): m is JSONRPCMessage & {id: RequestId} => !('method' in m) && 'id' in m

export class PacedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private readonly buffer = new ReadBuffer()
  /** Requests read and not yet answered. */
  private readonly inFlight = new Set<RequestId>()
  /** Set while stdout has not drained: answers wait on it, reading stops. */
  private drained: Promise<void> | undefined
  /** Complete messages may remain in the buffer (reading stopped at the bound). */
  private backlog = false
  private ended = false
  private stopping = false
  private closed = false
  private graceTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly o: {limit?: number; graceMs?: number} = {},
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData)
    this.stdin.on('error', this.onError)
    this.stdin.once('end', this.onEnd)
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return
    const written = this.stdout.write(serializeMessage(message))
    if (isAnswer(message)) this.inFlight.delete(message.id)
    if (!written && !this.drained)
      this.drained = new Promise((resolve) =>
        this.stdout.once('drain', () => {
          this.drained = undefined
          resolve()
          this.pump()
        }),
      )
    this.pump()
    if (this.drained) await this.drained
  }

  /** Reads no more requests; those read are answered (or, after the grace, answered with an error); then closes. */
  stop(reason: string): void {
    if (this.stopping) return
    this.stopping = true
    this.stdin.pause()
    this.graceTimer = setTimeout(() => {
      for (const id of [...this.inFlight])
        void this.send({error: {code: -32_000, message: `The server stopped (${reason}) before this call finished.`}, id, jsonrpc: '2.0'})
      this.settle()
    }, this.o.graceMs ?? 3000)
    this.settle()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.graceTimer)
    this.stdin.off('data', this.onData)
    this.stdin.off('error', this.onError)
    this.stdin.off('end', this.onEnd)
    this.stdin.pause()
    this.buffer.clear()
    this.onclose?.()
  }

  private readonly onData = (chunk: Buffer) => {
    try {
      this.buffer.append(chunk)
    } catch (error) {
      this.onerror?.(error as Error)
      void this.close()
      return
    }
    this.pump()
  }

  private readonly onError = (error: Error) => this.onerror?.(error)

  private readonly onEnd = () => {
    this.ended = true
    this.pump()
  }

  /** Dispatches what was read while there is room; reads more only when all of it was dispatched. */
  private pump(): void {
    if (this.closed) return
    const room = () => !this.stopping && this.inFlight.size < (this.o.limit ?? MAX_IN_FLIGHT) && this.drained === undefined
    this.backlog = true
    while (room()) {
      let message: JSONRPCMessage | null
      try {
        message = this.buffer.readMessage()
      } catch (error) {
        // A line that is not a JSON-RPC message: said, and the next line read (as the SDK's transport does).
        this.onerror?.(error as Error)
        continue
      }
      if (message === null) {
        this.backlog = false
        break
      }
      if (isRequest(message)) this.inFlight.add(message.id)
      // A request the client gave up on is answered by no one (the SDK sends nothing for it): it no longer counts.
      if ('method' in message && message.method === 'notifications/cancelled')
        this.inFlight.delete((message.params as {requestId?: RequestId} | undefined)?.requestId ?? '')
      this.onmessage?.(message)
    }
    if (this.backlog || !room()) this.stdin.pause()
    else if (!this.ended) this.stdin.resume()
    this.settle()
  }

  /** Closes once the client has gone (or the server stops) and every request read has been answered. */
  private settle(): void {
    const done = this.stopping || (this.ended && !this.backlog)
    if (!done || this.inFlight.size > 0 || this.closed) return
    // The last answer's write is flushed by the stream; closing after it is what a client that sent and closed expects.
    setImmediate(() => {
      if (this.inFlight.size === 0) void this.close()
    })
  }
}
