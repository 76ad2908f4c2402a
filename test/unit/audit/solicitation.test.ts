import { describe, expect, it } from "vitest";
import { analyzeHomepage } from "../../../shared/audit/signals.ts";
import { findSolicitationRefusal } from "../../../shared/audit/solicitation.ts";

const refuses = (line: string) => findSolicitationRefusal([line]) !== null;

describe("a page that refuses unsolicited email or marketing", () => {
  it.each([
    "We do not accept unsolicited sales emails.",
    "We don't want any marketing calls or emails, thank you.",
    "Please do not send us unsolicited offers.",
    "Do not email us with marketing proposals.",
    "Please do not use this email address for marketing purposes.",
    "Not to use this address for unsolicited commercial email.",
    "Unsolicited emails will be deleted.",
    "Marketing messages are not welcome.",
    "No solicitations, please.",
    "NO SOLICITING",
    "Agencies and recruiters: please do not contact us.",
    "Solicitors need not apply.",
  ])("English: %s", (line) => {
    expect(refuses(line)).toBe(true);
  });

  it.each([
    "Nous n'acceptons pas les sollicitations commerciales.",
    "Nous n’acceptons aucune sollicitation par courriel.",
    "Nous ne souhaitons pas recevoir d'offres commerciales.",
    "Nous ne répondons pas aux sollicitations.",
    "Merci de ne pas nous solliciter.",
    "Veuillez ne pas nous envoyer de courriels publicitaires.",
    "Prière de ne pas utiliser cette adresse à des fins commerciales.",
    "Cette adresse ne peut être utilisée à des fins de prospection commerciale.",
    "Pas de sollicitation s.v.p.",
    "Aucune sollicitation.",
    "Démarchage commercial s'abstenir.",
    "Sollicitations commerciales interdites.",
    "Les courriels publicitaires ne seront pas lus.",
  ])("French: %s", (line) => {
    expect(refuses(line)).toBe(true);
  });
});

describe("pages that mention such words but refuse nothing (false positives matter as much)", () => {
  it.each([
    "Protect your inbox from unsolicited email with our spam filter.",
    "We never send unsolicited emails: unsubscribe at any time.",
    "No spam. Unsubscribe at any time.",
    "Our marketing agency helps local trades reach new clients by email.",
    "We do not accept unsolicited manuscripts.",
    "We do not accept unsolicited resumes; see our careers page.",
    "Door-to-door solicitation bylaws in Ottawa: what homeowners should know.",
    "Email marketing, SEO and advertising for small businesses.",
    "Send us your offer and we will reply within a day.",
    "Commercial and residential plumbing: call for a free estimate.",
    "Please do not send us your original documents; email copies instead.",
  ])("English: %s", (line) => {
    expect(refuses(line)).toBe(false);
  });

  it.each([
    "Nous luttons contre les courriels non sollicités (pourriels) grâce à notre filtre.",
    "Nous vous aidons à prospecter de nouveaux clients par courriel.",
    "Prospection commerciale : notre équipe vous accompagne.",
    "Nous ne vendons pas vos données à des fins commerciales.",
    "Démarchage téléphonique : inscrivez-vous sur la liste nationale de numéros exclus.",
    "Pas de publicité sur notre site, juste nos réalisations.",
    "Aucune sollicitation de dons n'est faite par téléphone par notre fondation? Vérifiez toujours.",
    "Envoyez-nous vos offres d'emploi et propositions de partenariat.",
    "Service commercial : ventes@exemple.ca",
  ])("French: %s", (line) => {
    expect(refuses(line)).toBe(false);
  });
});

describe("in the homepage audit", () => {
  const audit = (body: string) =>
    analyzeHomepage({
      html: `<!doctype html><html><body>${body}</body></html>`,
      url: "https://www.maple-plumbing.ca/",
      country: "CA",
      now: new Date("2026-11-22T12:00:00Z"),
    });

  it("reads the visible text, and keeps the sentence as evidence", () => {
    const refusing = audit(
      '<footer><p>Contact: <a href="mailto:info@maple-plumbing.ca">info@maple-plumbing.ca</a></p><p>Nous n\'acceptons aucune sollicitation commerciale.</p></footer>',
    );
    expect(refusing.signals.solicitation_refused).toBe(true);
    expect(refusing.evidence.solicitation_text).toBe("Nous n'acceptons aucune sollicitation commerciale.");
    const silent = audit("<p>Email marketing for trades: info@maple-plumbing.ca</p>");
    expect(silent.signals.solicitation_refused).toBe(false);
    expect(silent.evidence.solicitation_text).toBeNull();
    // Script code and comments are not what a visitor reads.
    const hidden = audit(
      "<script>// No solicitations</script><!-- We do not accept unsolicited sales emails -->",
    );
    expect(hidden.signals.solicitation_refused).toBe(false);
  });
});
