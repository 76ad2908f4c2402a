import { randomUUID } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** The machine's PostgreSQL (trust auth). Tests fail loudly when it cannot be reached. */
const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL}: start it (see README, "Running the tests") or set TEST_POSTGRES_URL.`,
      { cause: error },
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database cloned from the migrated template: cheap, and isolated per test file. */
export async function createDatabaseFromTemplate(): Promise<{
  name: string;
  url: string;
  drop(): Promise<void>;
}> {
  const name = `lead_api_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const template = inject("templateDatabase");
  await withAdminClient((client) => client.query(`create database ${name} template ${template}`));
  return {
    name,
    url: databaseUrl(name),
    drop: () =>
      withAdminClient((client) => client.query(`drop database if exists ${name} with (force)`)).then(
        () => {},
      ),
  };
}
