import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * `npm run bench`: every bench/*.bench.ts in its own process, one after the other, so that each
 * prints its figures next to the baseline it measured in the same run. `npm run bench -- search`
 * runs only the files whose name contains "search".
 */
const folder = fileURLToPath(new URL(".", import.meta.url));
const filter = process.argv[2];
const files = readdirSync(folder)
  .filter((file) => file.endsWith(".bench.ts") && (!filter || file.includes(filter)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n### ${file}`);
  const result = spawnSync(process.execPath, [`${folder}${file}`], { stdio: "inherit", env: process.env });
  if (result.status !== 0) {
    failed += 1;
    console.log(`### ${file} failed (exit ${result.status ?? result.signal})`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
