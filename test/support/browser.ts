/**
 * Headless Chromium for browser tests, brought by the project: the `@sparticuz/chromium` package
 * ships a brotli-compressed headless Chromium build in its `bin/` folder, and playwright-core drives
 * it. Nothing is installed on the machine and nothing is downloaded.
 */
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdir, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { createBrotliDecompress } from "node:zlib";
import { type Browser, chromium } from "playwright-core";

/**
 * The switches this machine needs: no sandbox (tests run as root), no GPU, and no background
 * networking, whose connections the machine's closed network refuses many at a time.
 */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The Chromium executable, decompressed once per package version into node_modules/.cache.
 * The package's own `executablePath()` is not used: it writes to a fixed `/tmp/chromium` shared
 * by every project and user on the machine, and returns a half-written file to a second process
 * that asks while the first is still decompressing. Here the file is written under a unique name
 * and renamed into place, so concurrent test files never see a partial binary.
 */
async function chromiumExecutable(): Promise<string> {
  const packageDir = join(dirname(fileURLToPath(import.meta.resolve("@sparticuz/chromium"))), "..");
  const { version } = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8")) as {
    version: string;
  };
  const executable = join(
    PROJECT_ROOT,
    "node_modules",
    ".cache",
    `sparticuz-chromium-${version}`,
    "chromium",
  );
  if (existsSync(executable)) return executable;
  await mkdir(dirname(executable), { recursive: true });
  const partial = `${executable}.${process.pid}.${randomBytes(4).toString("hex")}.partial`;
  try {
    await pipeline(
      createReadStream(join(packageDir, "bin", "chromium.br")),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    await rename(partial, executable);
  } finally {
    await rm(partial, { force: true });
  }
  return executable;
}

/** A headless Chromium with a fresh profile; close it in the test's afterAll. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: await chromiumExecutable(), args: CHROMIUM_ARGS });
}
