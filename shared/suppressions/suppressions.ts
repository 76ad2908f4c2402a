import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { SuppressionKind } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { memberEmail } from "../workspaces/members.ts";
import { registrableDomainOf, type SuppressionRequest } from "./schemas.ts";

/**
 * The `suppressions` table: per workspace, the email addresses, domains and places that must not
 * be contacted. A suppressed place is never returned or charged by a search and never counts
 * toward max_results (shared/search), its lead reads `skipped` (shared/leads) and drafting it is
 * refused before any credit or model is touched (shared/drafting).
 *
 * Matching, written once in `SuppressionList.matches`: an email entry matches the lead's contact
 * address; a domain entry matches an address on that domain or any subdomain of it, and a
 * website on that domain or a subdomain (the business's own domain says who it is); a place entry
 * matches the place. Emails and domains are stored lower-cased, and every comparison ignores case.
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
  if (request.email !== undefined) return { kind: "email", value: request.email };
  if (request.domain !== undefined) return { kind: "domain", value: request.domain };
  if (request.place_id !== undefined) return { kind: "place", value: request.place_id };
  throw new ApiError("invalid_request", "body: give exactly one of email, domain or place_id.");
}

function entriesQuery(db: Db, workspaceId: string) {
  return db
    .selectFrom("suppressions")
    .select([
      "suppressions.id",
      "suppressions.kind",
      "suppressions.value",
      "suppressions.reason",
      "suppressions.created_at",
      memberEmail("suppressions.added_by_member_id").as("member_email"),
    ])
    .where("suppressions.workspace_id", "=", workspaceId);
}

type EntryRow = Awaited<ReturnType<ReturnType<typeof entriesQuery>["execute"]>>[number];

const toEntry = ({ member_email, ...row }: EntryRow): SuppressionEntry => ({
  ...row,
  added_by: member_email ?? OPERATOR,
});

/**
 * Adds an entry; adding one that is already there (same kind and value, whatever the case) keeps
 * the first and answers it, with `created: false`.
 */
export async function addSuppression(
  db: Db,
  workspaceId: string,
  request: SuppressionRequest,
  addedByMemberId: string | null,
): Promise<{ entry: SuppressionEntry; created: boolean }> {
  const { kind, value } = entryOf(request);
  const inserted = await db
    .insertInto("suppressions")
    .values({
      workspace_id: workspaceId,
      kind,
      value,
      reason: request.reason === undefined || request.reason === "" ? null : request.reason,
      added_by_member_id: addedByMemberId,
    })
    .onConflict((oc) => oc.doNothing())
    .returning("id")
    .executeTakeFirst();
  const entry = await entriesQuery(db, workspaceId)
    .where("suppressions.kind", "=", kind)
    .where((eb) => eb(eb.fn("lower", ["suppressions.value"]), "=", value.toLowerCase()))
    .executeTakeFirstOrThrow();
  return { entry: toEntry(entry), created: inserted !== undefined };
}

/** The workspace's entries, newest first. */
export async function listSuppressions(db: Db, workspaceId: string): Promise<SuppressionEntry[]> {
  const rows = await entriesQuery(db, workspaceId)
    .orderBy("suppressions.created_at", "desc")
    .orderBy("suppressions.id", "desc")
    .execute();
  return rows.map(toEntry);
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

/** The workspace's list in memory, for checking many leads at once (a search's candidates, a page of leads). */
export interface SuppressionList {
  readonly size: number;
  matches(subject: SuppressionSubject): boolean;
  /** An address the list covers (by the address or its domain); false for null. */
  coversEmail(email: string | null): boolean;
}

export async function loadSuppressionList(db: Db, workspaceId: string): Promise<SuppressionList> {
  const rows = await db
    .selectFrom("suppressions")
    .select(["kind", "value"])
    .where("workspace_id", "=", workspaceId)
    .execute();
  return suppressionListOf(rows);
}

/** The entries `suppressionEntriesSql` reads: `suppressionListOf` makes them a list. */
export type SuppressionEntryRows = { kind: SuppressionKind; value: string }[];

/**
 * `loadSuppressionList`'s read inside another statement (the lead list's page, one round trip):
 * the workspace's entries as one JSON array, evaluated once per statement.
 */
export function suppressionEntriesSql(workspaceId: string) {
  return sql<SuppressionEntryRows>`(
    select coalesce(json_agg(json_build_object('kind', suppressions.kind, 'value', suppressions.value)), '[]'::json)
    from suppressions where suppressions.workspace_id = ${workspaceId})`;
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
  for (const entry of entries) {
    const value = entry.value.toLowerCase();
    // A domain entry stored before entries were reduced to their registrable domain (`www.acme.ca`)
    // covers what a new one would.
    sets[entry.kind].add(entry.kind === "domain" ? registrableDomainOf(value) : value);
  }

  /** The host or one of its parent domains is listed. */
  const coversHost = (host: string): boolean => {
    if (sets.domain.size === 0) return false;
    const labels = host.toLowerCase().replace(/\.+$/, "").split(".");
    for (let index = 0; index < labels.length - 1; index += 1) {
      if (sets.domain.has(labels.slice(index).join("."))) return true;
    }
    return false;
  };
  const coversEmail = (email: string | null): boolean => {
    if (email === null) return false;
    const address = email.toLowerCase();
    return sets.email.has(address) || coversHost(address.slice(address.lastIndexOf("@") + 1));
  };
  return {
    size: entries.length,
    coversEmail,
    matches(subject) {
      if (entries.length === 0) return false;
      if (sets.place.has(subject.placeId.toLowerCase())) return true;
      if (coversEmail(subject.email)) return true;
      const host = hostOf(subject.website);
      return host !== null && coversHost(host);
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
