import { loadConfig } from "../config.ts";
import { createDatabase } from "./database.ts";
import { migrateToLatest } from "./migrate.ts";

const config = loadConfig(process.env);
const db = await createDatabase(config.database);
try {
  const applied = await migrateToLatest(db);
  console.log(applied.length > 0 ? `Applied: ${applied.join(", ")}` : "Database is up to date.");
} finally {
  await db.destroy();
}
