import type { LeadWithEvidence } from "../../../shared/console/workspace-views.ts";
import type { OutreachStatus } from "../../../shared/db/schema.ts";
import { type FactKey, isFactKey } from "../../../shared/facts/fact-keys.ts";
import { isLanguage, type Language } from "../../../shared/languages.ts";
import { html, type SafeHtml } from "../html.ts";
import type { MessageKey, Translator } from "../i18n.ts";

/**
 * Every value the domain stores as a code (statuses, fact keys, evidence kinds) in the reader's
 * words: a page never shows `new`, `drafted` or `no_website`.
 */
const STATUS_LABELS: Record<OutreachStatus, MessageKey> = {
  new: "statusNew",
  drafted: "statusDrafted",
  sent: "statusSent",
  skipped: "statusSkipped",
};
export const OUTREACH_STATUSES = Object.keys(STATUS_LABELS) as OutreachStatus[];
export const statusLabel = (t: Translator, status: OutreachStatus): string => t.t(STATUS_LABELS[status]);

const FACT_LABELS: Record<FactKey, MessageKey> = {
  no_website: "factNoWebsite",
  no_mobile_viewport: "factNoMobileViewport",
  stale_copyright: "factStaleCopyright",
  legacy_site_tech: "factLegacySiteTech",
  no_french_version: "factNoFrenchVersion",
  low_review_count: "factLowReviewCount",
  not_mobile_friendly: "factNotMobileFriendly",
  outdated_website: "factOutdatedWebsite",
  site_unreachable: "factSiteUnreachable",
  parked_domain: "factParkedDomain",
  social_profile_only: "factSocialProfileOnly",
  no_https: "factNoHttps",
};
/** A fact key of a draft; a key this console does not know yet reads as words, not as a code. */
export const factLabel = (t: Translator, key: string): string => {
  return isFactKey(key) ? t.t(FACT_LABELS[key]) : key.replaceAll("_", " ");
};

const LANGUAGE_NAMES: Record<Language, MessageKey> = { en: "english", fr: "french" };
/** A language's name in the reader's words; a code this console does not know reads as itself. */
/**
 * Why the address got its email_status, from the reason the check kept (email-status.ts); an
 * audit made before reasons were kept gets the status's possible reasons.
 */
export function emailStatusReason(t: Translator, lead: LeadWithEvidence): string {
  if (lead.email_status === null) return "";
  const reason = lead.evidence?.email_status_reason;
  if (!reason) return t.t(`emailReasonUnrecorded_${lead.email_status}`);
  const domain = lead.email?.slice(lead.email.lastIndexOf("@") + 1) ?? "";
  return t.t(`emailReason_${reason}`, { domain });
}

export const languageName = (t: Translator, language: string): string =>
  isLanguage(language) ? t.t(LANGUAGE_NAMES[language]) : language;

export function flagBadges(t: Translator, lead: LeadWithEvidence): SafeHtml {
  const badges: string[] = [];
  if (lead.no_website_flag) badges.push(t.t("noWebsite"));
  if (lead.not_mobile_friendly_flag) badges.push(t.t("notMobileFriendly"));
  if (lead.outdated_website_flag) badges.push(t.t("outdatedWebsite"));
  if (lead.pitch?.site_unreachable) badges.push(t.t("siteUnreachable"));
  if (lead.pitch?.parked_domain) badges.push(t.t("parkedDomain"));
  if (lead.pitch?.social_profile_only) badges.push(t.t("socialProfileOnly"));
  if (lead.pitch?.no_https) badges.push(t.t("noHttps"));
  if (badges.length === 0 && lead.website !== null && lead.signals === null) {
    return html`<span class="muted small">${t.t("notChecked")}</span>`;
  }
  return html`${badges.map((badge) => html`<span class="flag">${badge}</span>`)}`;
}

/** The auditor describes a layout table in English; the tag it quotes is the page's own. */
function layoutLine(t: Translator, text: string): string {
  const fixed = /^fixed-width layout table: (.*)$/s.exec(text);
  if (fixed?.[1] !== undefined) return t.t("evFixedTable", { tag: fixed[1] });
  const nested = /^nested layout tables: (.*)$/s.exec(text);
  if (nested?.[1] !== undefined) return t.t("evNestedTables", { tag: nested[1] });
  return text;
}

/**
 * The audit's evidence, one line per signal that was found, in words a person can check on the
 * site: labels translated, what is quoted from the page (tags, versions, notices) as it was.
 */
export function evidenceList(t: Translator, lead: LeadWithEvidence): SafeHtml {
  const lines = pitchEvidence(t, lead);
  const evidence = lead.evidence;
  const signals = lead.signals;
  if (!evidence || !signals) return evidenceLines(lines);
  if (signals.no_mobile_viewport) lines.push([t.t("evViewport"), t.t("evNoViewport")]);
  else if (evidence.viewport && signals.not_mobile_friendly)
    lines.push([t.t("evViewport"), evidence.viewport]);
  if (evidence.jquery_version) lines.push([t.t("evJquery"), evidence.jquery_version]);
  if (evidence.legacy_tags?.length) lines.push([t.t("evTags"), evidence.legacy_tags.join(", ")]);
  if (evidence.flash?.length) lines.push([t.t("evFlash"), evidence.flash.join(", ")]);
  if (evidence.table_layout) lines.push([t.t("evLayout"), layoutLine(t, evidence.table_layout)]);
  if (evidence.copyright_text) lines.push([t.t("evCopyright"), evidence.copyright_text]);
  if (evidence.media_paths?.length)
    lines.push([t.t("lastMediaYear"), evidence.media_paths.slice(0, 3).join(", ")]);
  if (evidence.french_version) lines.push([t.t("evFrench"), evidence.french_version]);
  return evidenceLines(lines);
}

function evidenceLines(lines: [string, string][]): SafeHtml {
  if (lines.length === 0) return html``;
  return html`<dl class="facts small">${lines.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>`;
}

/** How a homepage fetch ended (an attempt, the https check), in words; the error code stays as sent. */
function fetchEnd(t: Translator, end: string): string {
  if (end === "no_such_domain") return t.t("endNoSuchDomain");
  if (end === "connection_refused") return t.t("endConnectionRefused");
  if (end === "ok") return t.t("endOk");
  const status = /^http_(\d{3})$/.exec(end)?.[1];
  if (status !== undefined) return t.t("endHttpStatus", { status });
  const redirect = /^redirects to (.*)$/s.exec(end)?.[1];
  if (redirect !== undefined) return t.t("endRedirectsTo", { url: redirect });
  const failure = /^(\w+)(?: \(([\w.-]+)\))?$/.exec(end);
  const key = failure?.[1] ? FETCH_FAILURES[failure[1]] : undefined;
  if (!key) return end;
  return failure?.[2] ? `${t.t(key)} (${failure[2]})` : t.t(key);
}
const FETCH_FAILURES: Record<string, MessageKey> = {
  dns_failed: "endDnsFailed",
  connection_failed: "endConnectionFailed",
  tls_failed: "endTlsFailed",
  timeout: "endTimeout",
};
const CERTIFICATE_PROBLEMS: Record<string, MessageKey> = {
  expired: "certExpired",
  wrong_host: "certWrongHost",
  self_signed: "certSelfSigned",
  untrusted: "certUntrusted",
};
/** Where the parking marker was found (the quoted wording or service is the page's own). */
const parkingLine = (t: Translator, marker: string): string => {
  const [, where, what] = /^(parking service|headline:|text:) (.*)$/s.exec(marker) ?? [];
  if (what === undefined) return marker;
  if (where === "parking service") return t.t("parkingService", { service: what });
  return t.t(where === "headline:" ? "parkingHeadline" : "parkingText", { wording: what });
};

/** The pitch facts' evidence: each attempt's end, the parking marker, the profile, the https check. */
export function pitchEvidence(t: Translator, lead: LeadWithEvidence): [string, string][] {
  const { pitch, pitch_evidence: evidence } = lead;
  if (!pitch || !evidence) return [];
  const lines: [string, string][] = [];
  if (pitch.site_unreachable && evidence.attempts?.length) {
    const attempts = evidence.attempts.map(
      (attempt) => `${fetchEnd(t, attempt.result)} (${t.date(new Date(attempt.at))})`,
    );
    lines.push([t.t("attempts"), attempts.join(", ")]);
  }
  if (pitch.parked_domain && evidence.parking_marker)
    lines.push([t.t("parkingMarker"), parkingLine(t, evidence.parking_marker)]);
  if (pitch.social_profile_only && evidence.social_profile_host) {
    lines.push([t.t("socialProfile"), `${evidence.social_platform ?? ""} (${evidence.social_profile_host})`]);
  }
  if (pitch.no_https) {
    const certificate = evidence.certificate_problem;
    const problem = certificate
      ? t.t("certificateProblem", {
          problem: CERTIFICATE_PROBLEMS[certificate] ? t.t(CERTIFICATE_PROBLEMS[certificate]) : certificate,
        })
      : evidence.https_result
        ? fetchEnd(t, evidence.https_result)
        : "";
    lines.push(["https", `${evidence.final_url ?? lead.website ?? ""} · ${problem}`]);
  }
  return lines;
}
