import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The default output, then the plain `N passed, N failed` line that CI reads.
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most integration files wait on real processes, timers and loopback servers rather than on the
    // CPU: vitest's default on 2 cores (one file at a time) left the machine idle for most of the
    // run. Three files at once keep the whole suite well within CI's 20 minutes.
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["test/unit/**/*.test.ts"] },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          globalSetup: ["test/support/global-setup.ts"],
          env: { TEST_DATABASE: "postgres" },
        },
      },
      {
        extends: true,
        test: {
          name: "integration-pglite",
          include: [
            "test/integration/api/**/*.test.ts",
            "test/integration/db/**/*.test.ts",
            // The console in embedded mode: the same pages over PGlite.
            "test/integration/console/pages.test.ts",
            // The do-not-contact list's one-statement import, cap and pages on both databases.
            "test/integration/console/suppression-list.test.ts",
            // The leads page's status filter, read in the statement, on both databases.
            "test/integration/console/lead-status-filter.test.ts",
          ],
          env: { TEST_DATABASE: "pglite" },
          // Each PGlite compiles its WebAssembly (about 2 s of CPU, several times that while other
          // files share the two cores): a file that starts two apps needs more than 60 s then.
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
