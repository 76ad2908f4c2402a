import { test } from "vitest";
import { startFakeGooglePlaces } from "./fake-google-places.ts";

/**
 * The fake-Google world as a vitest fixture: `googlePlaces`, a fake Places server on loopback,
 * started once per file when a hook or a test first asks for it and closed after the file's own
 * `afterAll` hooks (so after the apps that call it). Point an app at it with `...googlePlaces.env`.
 *
 *   test.beforeAll(async ({ googlePlaces }) => {
 *     places = googlePlaces;
 *     t = await startTestApp({ ...places.env });
 *   });
 */
export const googlePlacesTest = test.extend(
  "googlePlaces",
  { scope: "file" },
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern; it has none.
  async ({}, { onCleanup }) => {
    const server = await startFakeGooglePlaces();
    onCleanup(() => server.close());
    return server;
  },
);
