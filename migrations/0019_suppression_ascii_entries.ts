import { domainToASCII } from "node:url";
import { type Kysely, sql } from "kysely";

// Email and domain entries in the form they are matched in (a non-ASCII domain as its ASCII form,
// `café.ca` -> `xn--caf-dma.ca`, the form a URL's hostname reads; lower-cased; no trailing dot).
// A lead's "Do not contact" stored the address the audit found as the site wrote it
// (`Info@Café.ca`); the matcher now reads every address's domain in its ASCII form, so such an
// entry is rewritten, or removed where the workspace already has the rewritten one.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  const asciiHost = (host: string) => {
    const lowered = host.toLowerCase().replace(/\.+$/, "");
    return domainToASCII(lowered) || lowered;
  };
  const { rows } = await sql<{ id: string; workspace_id: string; kind: string; value: string }>`
    select id, workspace_id, kind, value from suppressions where kind in ('email', 'domain')`.execute(db);
  for (const row of rows) {
    const at = row.value.lastIndexOf("@");
    const value =
      row.kind === "domain"
        ? asciiHost(row.value)
        : at < 0
          ? row.value.toLowerCase()
          : `${row.value.slice(0, at).toLowerCase()}@${asciiHost(row.value.slice(at + 1))}`;
    if (value === row.value) continue;
    const { rows: existing } = await sql`
      select 1 from suppressions
      where workspace_id = ${row.workspace_id} and kind = ${row.kind} and lower(value) = ${value}
        and id <> ${row.id}`.execute(db);
    if (existing.length > 0) await sql`delete from suppressions where id = ${row.id}`.execute(db);
    else await sql`update suppressions set value = ${value} where id = ${row.id}`.execute(db);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(_db: Kysely<any>): Promise<void> {
  // The values as written are not kept: the rewritten entries cover what they did.
}
