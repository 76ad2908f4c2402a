import type { Reporter, SerializedError, TestModule } from "vitest/node";

/**
 * Ends every `npm test` with one plain line, `N passed, N failed` (`, N skipped` when some were),
 * the closing line CI reads. A test file that failed outside any test (an import error, a failing
 * hook) and an unhandled error each count as one failure, so a broken file never looks green.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const testModule of testModules) {
      let failedTests = 0;
      for (const test of testModule.children.allTests()) {
        const { state } = test.result();
        if (state === "passed") passed += 1;
        else if (state === "failed") failedTests += 1;
        else skipped += 1;
      }
      failed += failedTests;
      if (failedTests === 0 && testModule.state() === "failed") failed += 1;
    }
    console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
  }
}
