/** The terminal rules of IOStreams: when to prompt, animate and colour (cli-contract.md). */
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {IOStreams} from '../../src/io/streams.js'

function io(tty: {stdin?: boolean; stdout?: boolean; stderr?: boolean}, env: NodeJS.ProcessEnv = {}): IOStreams {
  const stream = (isTTY = false) => Object.assign(new PassThrough(), {isTTY}) as unknown as NodeJS.WriteStream & NodeJS.ReadStream
  return new IOStreams({env, stderr: stream(tty.stderr), stdin: stream(tty.stdin), stdout: stream(tty.stdout)})
}

describe('IOStreams', () => {
  it('prompts, spinners and progress bars only when stdin and stderr are terminals and CI is not set', () => {
    expect(io({stderr: true, stdin: true}).canPrompt()).toBe(true)
    expect(io({stderr: true, stdin: true}).canAnimate()).toBe(true)
    for (const tty of [{stderr: true}, {stdin: true}, {stdout: true}]) {
      expect(io(tty).canPrompt()).toBe(false)
      expect(io(tty).canAnimate()).toBe(false)
    }
    expect(io({stderr: true, stdin: true}, {CI: 'true'}).canPrompt()).toBe(false)
    expect(io({stderr: true, stdin: true}, {CI: '1'}).canAnimate()).toBe(false)
  })

  it('colour on a terminal stdout or with FORCE_COLOR; NO_COLOR always wins', () => {
    expect(io({stdout: true}).color).toBe(true)
    expect(io({}).color).toBe(false)
    expect(io({}, {FORCE_COLOR: '1'}).color).toBe(true)
    expect(io({stdout: true}, {NO_COLOR: '1'}).color).toBe(false)
    expect(io({}, {FORCE_COLOR: '1', NO_COLOR: '1'}).color).toBe(false)
    expect(io({stdout: true}, {NO_COLOR: '1'}).chalk.red('x')).toBe('x')
  })
})
