/**
 * Prints one plain closing line after vitest's own summary, `tests: N passed, N failed, N skipped`, that any CI
 * can read whatever reporter it knows.
 */
import type {Reporter, TestModule} from 'vitest/node'

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const count = {failed: 0, passed: 0, skipped: 0}
    for (const module of testModules)
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') count.passed++
        else if (state === 'failed') count.failed++
        else count.skipped++
      }
    // A file that failed to load has no tests: count it as a failure so the line cannot claim success.
    for (const module of testModules) if (module.state() === 'failed' && [...module.children.allTests()].length === 0) count.failed++
    process.stdout.write(`\ntests: ${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`)
  }
}
