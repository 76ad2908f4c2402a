import { type Kysely, sql } from "kysely";
import { getDomain } from "tldts";

// Domain entries on their registrable domain (issue 31 findings 4 and 7). Entries added before
// 16d263f kept the host as typed (`www.acme.ca`, `mail.acme.ca`); the matcher reduced them when it
// read the whole list. Searches and lead pages now read only the entries whose value is one of a
// candidate's parent domains (an indexed lookup), so a stored value must be the domain it stands
// for: each is rewritten to its registrable domain (the public suffix list's, private part
// included, as the add form does), or removed where the workspace already has that domain.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ id: string; workspace_id: string; value: string }>`
    select id, workspace_id, value from suppressions where kind = 'domain'`.execute(db);
  for (const row of rows) {
    const value = row.value.toLowerCase();
    const domain = getDomain(value, { allowPrivateDomains: true }) ?? value.replace(/^(?:www\.)+/, "");
    if (domain === value) continue;
    const { rows: existing } = await sql`
      select 1 from suppressions
      where workspace_id = ${row.workspace_id} and kind = 'domain' and lower(value) = ${domain}`.execute(db);
    if (existing.length > 0) await sql`delete from suppressions where id = ${row.id}`.execute(db);
    else await sql`update suppressions set value = ${domain} where id = ${row.id}`.execute(db);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(_db: Kysely<any>): Promise<void> {
  // The hosts as typed are not kept: the reduced entries cover at least what they did.
}
