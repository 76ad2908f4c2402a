import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The default output, then the plain `N passed, N failed` line that CI reads.
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
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
        },
      },
    ],
  },
});
