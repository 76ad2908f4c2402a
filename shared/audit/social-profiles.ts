/**
 * Social profiles and link pages a business may list as its website: a Facebook page or a Linktree
 * is a presence on someone else's platform, not a site of the business's own. Decided from the
 * URL alone (DESIGN "Pitch facts": never fetched). Data, one entry per platform: its name as a
 * draft may write it, and the registrable domains it serves profiles from (subdomains included).
 */
const SOCIAL_PLATFORMS: readonly { platform: string; domains: readonly string[] }[] = [
  { platform: "Facebook", domains: ["facebook.com", "fb.com", "fb.me", "m.me"] },
  { platform: "Instagram", domains: ["instagram.com", "instagr.am"] },
  { platform: "Linktree", domains: ["linktr.ee", "linktree.com"] },
  { platform: "X", domains: ["twitter.com", "x.com"] },
  { platform: "LinkedIn", domains: ["linkedin.com", "lnkd.in"] },
  { platform: "TikTok", domains: ["tiktok.com"] },
  { platform: "YouTube", domains: ["youtube.com", "youtu.be"] },
  { platform: "Pinterest", domains: ["pinterest.com", "pinterest.ca", "pinterest.fr", "pin.it"] },
  { platform: "Threads", domains: ["threads.net", "threads.com"] },
  { platform: "Snapchat", domains: ["snapchat.com"] },
  { platform: "WhatsApp", domains: ["wa.me", "whatsapp.com"] },
  { platform: "Telegram", domains: ["t.me", "telegram.me"] },
  { platform: "Tumblr", domains: ["tumblr.com"] },
  { platform: "Beacons", domains: ["beacons.ai"] },
  { platform: "Linkin.bio", domains: ["linkin.bio"] },
  { platform: "Lnk.Bio", domains: ["lnk.bio"] },
  { platform: "bio.link", domains: ["bio.link"] },
  { platform: "Taplink", domains: ["taplink.cc", "taplink.at"] },
  { platform: "Campsite", domains: ["campsite.bio"] },
];

const platformByDomain = new Map(
  SOCIAL_PLATFORMS.flatMap(({ platform, domains }) => domains.map((domain) => [domain, platform] as const)),
);

export interface SocialProfile {
  /** The platform's name ("Facebook"): a fixed string of the list above, safe to quote in a draft. */
  platform: string;
  /** The URL's host as listed ("www.facebook.com"): the evidence. */
  host: string;
}

/** The platform a website URL is a profile on, or null for any other URL (or no URL). */
export function socialProfileOf(website: string | null): SocialProfile | null {
  if (website === null || !URL.canParse(website)) return null;
  const host = new URL(website).hostname.toLowerCase().replace(/\.$/, "");
  // The host itself, then each parent domain: "fr-ca.facebook.com" -> "facebook.com".
  for (let domain = host; domain.includes("."); domain = domain.slice(domain.indexOf(".") + 1)) {
    const platform = platformByDomain.get(domain);
    if (platform !== undefined) return { platform, host };
  }
  return null;
}
