import { type RawBuilder, sql, type Transaction } from "kysely";
import type { Db } from "../db/database.ts";
import type { Database, SuppressionKind } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { memberEmail } from "../workspaces/members.ts";
import { asciiEmailOf, asciiHostOf, type SuppressionRequest } from "./schemas.ts";

/**
 * The `suppressions` table: per workspace, the email addresses, domains and places that must not
 * be contacted. A suppressed place is never returned or charged by a search and never counts
 * toward max_results (shared/search), its lead reads `skipped` (shared/leads) and drafting it is
 * refused before any credit or model is touched (shared/drafting).
 *
 * Matching, written once in `SuppressionList.matches`: an email entry matches the lead's contact
 * address; a domain entry matches an address on that domain or any subdomain of it, and a
 * website on that domain or a subdomain (the business's own domain says who it is); a place entry
 * matches the place. Emails and domains are stored lower-cased, a domain as its ASCII form
 * (`xn--caf-dma.ca` for café.ca), and every comparison ignores case and reads a host in that form.
 * An entry matches when its stored value is one of the subject's keys (`keysOf`): set membership,
 * the same whether the whole list is read or only the entries an index finds for those keys.
 */

export interface SuppressionEntry {
  id: string;
  kind: SuppressionKind;
  value: string;
  reason: string | null;
  /** The adding member's email, or "operator". */
  added_by: string;
  created_at: Date;
}

/** What a lead is checked by: its place, its website and its contact address. */
interface SuppressionSubject {
  placeId: string;
  website: string | null;
  email: string | null;
}

export const OPERATOR = "operator";

function entryOf(request: SuppressionRequest): { kind: SuppressionKind; value: string } {
  // Stored in the form they are matched in, whoever built the request (a lead's "Do not contact"
  // takes the address the audit found, as the site wrote it: `Info@Café.ca`).
  if (request.email !== undefined) return { kind: "email", value: asciiEmailOf(request.email) };
  if (request.domain !== undefined) return { kind: "domain", value: asciiHostOf(request.domain) };
  if (request.place_id !== undefined) return { kind: "place", value: request.place_id };
  throw new ApiError("invalid_request", "body: give exactly one of email, domain or place_id.");
}

/** What an entry reads as, wherever it is read: its fields and who added it. */
function entryColumns() {
  return [
    "suppressions.id",
    "suppressions.kind",
    "suppressions.value",
    "suppressions.reason",
    "suppressions.created_at",
    memberEmail("suppressions.added_by_member_id").as("member_email"),
  ] as const;
}

function entriesQuery(db: Db, workspaceId: string) {
  return db
    .selectFrom("suppressions")
    .select(entryColumns())
    .where("suppressions.workspace_id", "=", workspaceId);
}

type EntryRow = Awaited<ReturnType<ReturnType<typeof entriesQuery>["execute"]>>[number];

const toEntry = ({ member_email, ...row }: EntryRow): SuppressionEntry => ({
  ...row,
  added_by: member_email ?? OPERATOR,
});

/** What the workspace's list may not grow past (SUPPRESSIONS_MAX_PER_WORKSPACE). */
export interface SuppressionCap {
  maxEntries: number;
}

/**
 * Adds entries in one statement (a multi-row insert that keeps what is already there: same kind
 * and value, whatever the case, keeps the first). The workspace's additions are serialized by a
 * transaction-scoped lock, so two imports cannot pass the cap together; an addition that would
 * take the list past it adds nothing and answers 400 `invalid_request` (reason `list_full`).
 */
export async function addSuppressions(
  db: Db,
  workspaceId: string,
  requests: readonly SuppressionRequest[],
  addedByMemberId: string | null,
  cap: SuppressionCap,
): Promise<{ added: number; known: number }> {
  const rows = new Map<string, { kind: SuppressionKind; value: string; reason: string | null }>();
  for (const request of requests) {
    const { kind, value } = entryOf(request);
    const key = `${kind}:${value.toLowerCase()}`;
    const reason = request.reason === undefined || request.reason === "" ? null : request.reason;
    if (!rows.has(key)) rows.set(key, { kind, value, reason });
  }
  if (rows.size === 0) return { added: 0, known: requests.length };
  const added = await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`suppressions:${workspaceId}`}, 0))`.execute(
      trx,
    );
    const before = await countSuppressions(trx, workspaceId);
    const inserted = await trx
      .insertInto("suppressions")
      .values(
        [...rows.values()].map((row) => ({
          workspace_id: workspaceId,
          ...row,
          added_by_member_id: addedByMemberId,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .returning("id")
      .execute();
    if (before + inserted.length > cap.maxEntries) {
      // Thrown inside the transaction: nothing of this addition stays.
      throw new ApiError(
        "invalid_request",
        `The do-not-contact list holds at most ${cap.maxEntries} entries; it has ${before}, and this would add ${inserted.length}. Nothing was added.`,
        { reason: "list_full" },
      );
    }
    return inserted.length;
  });
  return { added, known: requests.length - added };
}

/**
 * Adds one entry; adding one that is already there (same kind and value, whatever the case) keeps
 * the first and answers it, with `created: false`.
 */
export async function addSuppression(
  db: Db,
  workspaceId: string,
  request: SuppressionRequest,
  addedByMemberId: string | null,
  cap: SuppressionCap,
): Promise<{ entry: SuppressionEntry; created: boolean }> {
  const { kind, value } = entryOf(request);
  const { added } = await addSuppressions(db, workspaceId, [request], addedByMemberId, cap);
  const entry = await entriesQuery(db, workspaceId)
    .where("suppressions.kind", "=", kind)
    .where((eb) => eb(eb.fn("lower", ["suppressions.value"]), "=", value.toLowerCase()))
    .executeTakeFirstOrThrow();
  return { entry: toEntry(entry), created: added === 1 };
}

export async function countSuppressions(
  db: Db | Transaction<Database>,
  workspaceId: string,
): Promise<number> {
  const { count } = await db
    .selectFrom("suppressions")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** The workspace's entries, newest first (every one: the admin API's listing). */
export async function listSuppressions(db: Db, workspaceId: string): Promise<SuppressionEntry[]> {
  const rows = await entriesQuery(db, workspaceId)
    .orderBy("suppressions.created_at", "desc")
    .orderBy("suppressions.id", "desc")
    .execute();
  return rows.map(toEntry);
}

/** Where a page of the list starts: after this entry, newest first. */
export interface SuppressionCursor {
  createdAt: Date;
  id: string;
}

const CURSOR_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const encodeSuppressionCursor = (cursor: SuppressionCursor): string =>
  `${cursor.createdAt.toISOString()}_${cursor.id}`;

/** Null for anything encodeSuppressionCursor could not have written (a hand-edited link). */
export function decodeSuppressionCursor(raw: string): SuppressionCursor | null {
  const [timestamp = "", id = "", ...rest] = raw.split("_");
  const createdAt = new Date(timestamp);
  if (rest.length > 0 || !CURSOR_UUID.test(id) || Number.isNaN(createdAt.getTime())) return null;
  if (createdAt.toISOString() !== timestamp || createdAt.getUTCFullYear() < 2000) return null;
  return { createdAt, id };
}

/**
 * One page of the list, newest first (keyset: after the cursor's entry), its entries containing
 * `search` (in the value or the reason, whatever the case) when one is given.
 */
export async function listSuppressionPage(
  db: Db,
  workspaceId: string,
  page: { limit: number; after: SuppressionCursor | null; search: string },
): Promise<{ entries: SuppressionEntry[]; next: SuppressionCursor | null }> {
  let query = entriesQuery(db, workspaceId);
  const search = page.search.trim().toLowerCase();
  if (search !== "") {
    const pattern = `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    query = query.where((eb) =>
      eb.or([
        eb(eb.fn("lower", ["suppressions.value"]), "like", pattern),
        eb(eb.fn("lower", ["suppressions.reason"]), "like", pattern),
      ]),
    );
  }
  const { after } = page;
  if (after !== null) {
    query = query.where((eb) =>
      eb.or([
        eb("suppressions.created_at", "<", after.createdAt),
        eb.and([eb("suppressions.created_at", "=", after.createdAt), eb("suppressions.id", "<", after.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy("suppressions.created_at", "desc")
    .orderBy("suppressions.id", "desc")
    .limit(page.limit + 1)
    .execute();
  const entries = rows.slice(0, page.limit).map(toEntry);
  const last = entries.at(-1);
  return {
    entries,
    next: rows.length > page.limit && last ? { createdAt: last.created_at, id: last.id } : null,
  };
}

/** Removes one entry of the workspace; 404 `not_found` when it has none with this id. */
export async function removeSuppression(db: Db, workspaceId: string, entryId: string): Promise<void> {
  const removed = await db
    .deleteFrom("suppressions")
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", entryId)
    .executeTakeFirst();
  if (removed.numDeletedRows === 0n) {
    throw new ApiError("not_found", "No such suppression entry in this workspace.");
  }
}

/** Entries in memory, for checking many leads at once (a search's candidates, a page of leads). */
export interface SuppressionList {
  readonly size: number;
  matches(subject: SuppressionSubject): boolean;
  /** An address the list covers (by the address or its domain); false for null. */
  coversEmail(email: string | null): boolean;
}

/**
 * Whether the workspace has any entry (a search with none skips every lookup), inside another
 * statement: a search's first read, with its workspace.
 */
export function hasSuppressionsSql(workspaceId: string) {
  return sql<boolean>`exists (select 1 from suppressions where suppressions.workspace_id = ${workspaceId})`;
}

/**
 * The entries that could match these subjects, read through the (workspace, kind, lower(value))
 * index: their places, their addresses, and every parent domain of their websites' and addresses'
 * hosts. Never the whole list: a search or a page of leads reads a few rows, however long the
 * list. The answer matches exactly as the whole list would for these subjects.
 */
export async function loadSuppressionsFor(
  db: Db,
  workspaceId: string,
  subjects: readonly SuppressionSubject[],
): Promise<SuppressionList> {
  const candidates = candidateEntries(db, workspaceId, subjects);
  if (candidates === null) return suppressionListOf([]);
  return suppressionListOf(await candidates.select(["kind", "value"]).execute());
}

/**
 * The entry that keeps this subject from being contacted, with who added it (a member of the
 * agency, or the operator) and when: a refusal then says who listed the business rather than
 * guess. Read through the same index as `loadSuppressionsFor`; null when none matches.
 */
export async function findMatchingSuppression(
  db: Db,
  workspaceId: string,
  subject: SuppressionSubject,
): Promise<SuppressionEntry | null> {
  const candidates = candidateEntries(db, workspaceId, [subject]);
  if (candidates === null) return null;
  const rows = await candidates
    .select(entryColumns())
    .orderBy("suppressions.created_at")
    .orderBy("suppressions.id")
    .execute();
  const entry = rows.find((row) => suppressionListOf([row]).matches(subject));
  return entry === undefined ? null : toEntry(entry);
}

/** The entries that could match the subjects (`loadSuppressionsFor`), as a query; null when nothing could. */
function candidateEntries(db: Db, workspaceId: string, subjects: readonly SuppressionSubject[]) {
  const wanted = { place: new Set<string>(), email: new Set<string>(), domain: new Set<string>() };
  for (const subject of subjects) {
    const keys = keysOf(subject);
    wanted.place.add(keys.place);
    if (keys.email !== null) wanted.email.add(keys.email);
    for (const domain of keys.domains) wanted.domain.add(domain);
  }
  const kinds = (Object.entries(wanted) as [SuppressionKind, Set<string>][]).filter(
    ([, values]) => values.size > 0,
  );
  if (kinds.length === 0) return null;
  return db
    .selectFrom("suppressions")
    .where("suppressions.workspace_id", "=", workspaceId)
    .where((eb) =>
      eb.or(
        kinds.map(([kind, values]) =>
          eb.and([
            eb("suppressions.kind", "=", kind),
            eb(eb.fn("lower", ["suppressions.value"]), "in", [...values]),
          ]),
        ),
      ),
    );
}

/**
 * The values an entry of each kind must have to match the subject: its place id, its address (the
 * domain in ASCII form) and every parent domain of its website's and its address's hosts. The one
 * reading of a subject, for the in-memory rule and the indexed pre-selection alike.
 */
function keysOf(subject: SuppressionSubject): { place: string; email: string | null; domains: string[] } {
  const domains: string[] = [];
  let email: string | null = null;
  if (subject.email !== null) {
    email = asciiEmailOf(subject.email);
    domains.push(...parentDomainsOf(asciiHostOf(subject.email.slice(subject.email.lastIndexOf("@") + 1))));
  }
  const website = hostOf(subject.website);
  if (website !== null) domains.push(...parentDomainsOf(asciiHostOf(website)));
  return { place: subject.placeId.toLowerCase(), email, domains };
}

/** A host and its parent domains, never a bare TLD: `a.b.acme.ca` -> a.b.acme.ca, b.acme.ca, acme.ca. */
function parentDomainsOf(host: string): string[] {
  const labels = host.toLowerCase().replace(/\.+$/, "").split(".");
  const parents: string[] = [];
  for (let index = 0; index < labels.length - 1; index += 1) parents.push(labels.slice(index).join("."));
  return parents;
}

/** The entries `matchingSuppressionEntriesSql` reads: `suppressionListOf` makes them a list. */
export type SuppressionEntryRows = { kind: SuppressionKind; value: string }[];

/**
 * A website SQL reads the host of as a URL parser does (see matchingSuppressionEntriesSql; matched
 * case-insensitively): http(s), an ASCII host whose last label starts with a letter, at most one
 * trailing dot, then a port, a path, a query, a fragment or the end.
 */
const PLAIN_WEBSITE = "^https?://([a-z0-9-]+\\.)*[a-z][a-z0-9-]*\\.?(:[0-9]*)?([/?#]|$)";
/** An address SQL reads as `keysOf` does: printable ASCII, one @, a domain as in PLAIN_WEBSITE without the trailing dot. */
const PLAIN_EMAIL = "^[!-?A-~]+@([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*$";
/** A subject row whose keys SQL cannot read as `keysOf` does. */
const UNSURE_SUBJECT = sql`((website is not null and website !~* ${PLAIN_WEBSITE})
  or (email is not null and email !~ ${PLAIN_EMAIL})
  or place_id !~ '^[ -~]*$')`;

/**
 * `loadSuppressionsFor` inside another statement (the lead list's page, one round trip): the
 * entries that could match the subjects (rows of place_id, website, email), as one JSON array.
 * SQL reads a subject's keys as `keysOf` does only where it can do so exactly: an http(s) website
 * whose host is plain ASCII (letters, digits, hyphens, dots, a last label starting with a letter:
 * what a URL parser reads as that host, lower-cased, and no IPv4 form), an ASCII address on such a
 * domain, an ASCII place id. Those keys go through the (workspace, kind, lower(value)) index. A
 * subject SQL cannot read so (an IDN host, whose ASCII form only a URL parser computes, a
 * backslash, userinfo, a numeric host, a non-ASCII place id) makes the statement read every entry
 * of the workspace instead: more rows, never fewer, so `suppressionListOf` decides exactly as with
 * the whole list.
 */
export function matchingSuppressionEntriesSql(
  workspaceId: string,
  subjects: RawBuilder<{ place_id: string; website: string | null; email: string | null }>,
) {
  return sql<SuppressionEntryRows>`(
    with subject as (${subjects}),
    host as (
      select rtrim(lower(substring(website from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?([^/:?#]+)')), '.') as name
      from subject
      union
      select lower(substring(email from '@([^@]+)$')) from subject),
    parent as (
      select array_to_string((string_to_array(host.name, '.'))[i:], '.') as name
      from host, generate_series(1, coalesce(array_length(string_to_array(host.name, '.'), 1), 1) - 1) as i
      where host.name is not null),
    unsure as (select 1 from subject where ${UNSURE_SUBJECT} limit 1)
    select coalesce(json_agg(json_build_object('kind', candidate.kind, 'value', candidate.value)), '[]'::json)
    from (
      select entry.kind, entry.value from suppressions as entry
      where entry.workspace_id = ${workspaceId} and (
        (entry.kind = 'place' and lower(entry.value) in (select lower(place_id) from subject))
        or (entry.kind = 'email' and lower(entry.value) in (select lower(email) from subject where email is not null))
        or (entry.kind = 'domain' and lower(entry.value) in (select name from parent)))
      union
      select entry.kind, entry.value from suppressions as entry
      where exists (select 1 from unsure) and entry.workspace_id = ${workspaceId}
    ) as candidate)`;
}

/**
 * Whether `matchingSuppressionEntriesSql` finds an entry for these subjects: the pre-selection as
 * a condition, for a statement that narrows its rows to those the list may cover (the lead list's
 * status filter). It may keep a row the rules then clear; `suppressionListOf` decides.
 */
export function maySuppressSql(
  workspaceId: string,
  subjects: RawBuilder<{ place_id: string; website: string | null; email: string | null }>,
) {
  // A subject SQL cannot read may be covered: kept without reading the whole list for it.
  return sql<boolean>`(case when exists (select 1 from (${subjects}) as subject where ${UNSURE_SUBJECT}) then true
    else json_array_length(${matchingSuppressionEntriesSql(workspaceId, subjects)}) > 0 end)`;
}

/** The matching rules over a set of entries (pure; exported for the unit tests). */
export function suppressionListOf(
  entries: ReadonlyArray<{ kind: SuppressionKind; value: string }>,
): SuppressionList {
  const sets: Record<SuppressionKind, Set<string>> = {
    email: new Set(),
    domain: new Set(),
    place: new Set(),
  };
  // The value as stored, lower-cased (the index's lower(value)): a domain entry is stored as its
  // registrable domain in ASCII form (migration 0017 rewrote the older `www.` ones), so reducing it
  // again here would only let the whole list and the indexed pre-selection disagree.
  for (const entry of entries) sets[entry.kind].add(entry.value.toLowerCase());
  const coversKeys = (email: string | null, domains: readonly string[]): boolean =>
    (email !== null && sets.email.has(email)) || domains.some((domain) => sets.domain.has(domain));
  return {
    size: entries.length,
    coversEmail(email) {
      if (email === null || entries.length === 0) return false;
      const keys = keysOf({ placeId: "", website: null, email });
      return coversKeys(keys.email, keys.domains);
    },
    matches(subject) {
      if (entries.length === 0) return false;
      const keys = keysOf(subject);
      return sets.place.has(keys.place) || coversKeys(keys.email, keys.domains);
    },
  };
}

function hostOf(website: string | null): string | null {
  if (website === null) return null;
  try {
    return new URL(website).hostname;
  } catch {
    return null;
  }
}
