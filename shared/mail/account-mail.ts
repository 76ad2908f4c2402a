import { escapeHtml } from "../html-escape.ts";
import type { Language } from "../languages.ts";
import type { AccountMail } from "./mailer.ts";

/** What one mail says: a greeting line, paragraphs, the link's button and what to do if unexpected. */
interface MailWords {
  subject: string;
  paragraphs: string[];
  button: string;
  footer: string;
}

type MailKind =
  | { kind: "invite"; workspaceName: string; invitedBy: string | null }
  | { kind: "password_reset" }
  | { kind: "sign_up"; agencyName: string }
  | { kind: "sign_up_account_exists" }
  | { kind: "password_failures"; failures: number; minutes: number };

const words: Record<Language, (mail: MailKind) => MailWords> = {
  en: (mail) => {
    switch (mail.kind) {
      case "invite":
        return {
          // Nothing a member typed goes in a Subject (the workspace's name is theirs to choose).
          subject: "You are invited to a workspace on Lead discovery",
          paragraphs: [
            `${mail.invitedBy ?? "The service operator"} invited you to the workspace ${mail.workspaceName}.`,
            "Open the link to create your account, or to sign in with the one you have and accept. It works once, for 7 days.",
          ],
          button: "Join the workspace",
          footer:
            "If you did not expect this invitation, ignore this mail: nothing happens without the link.",
        };
      case "password_reset":
        return {
          subject: "Reset your Lead discovery password",
          paragraphs: [
            "Someone asked to reset the password of the account with this address.",
            "Open the link to choose a new password. It works once, for 1 hour. A new password signs out every session and disconnects every connected app.",
          ],
          button: "Choose a new password",
          footer: "If you did not ask for this, ignore this mail: your password stays as it is.",
        };
      case "sign_up":
        return {
          subject: "Confirm your Lead discovery account",
          paragraphs: [
            `Open the link to create your account and the workspace ${mail.agencyName} (10 free credits).`,
            "Nothing is created until you do. The link works once, for 24 hours.",
          ],
          button: "Confirm and create my account",
          footer: "If you did not sign up, ignore this mail: no account is created.",
        };
      case "password_failures":
        return {
          subject: "Wrong passwords were typed for your Lead discovery account",
          paragraphs: [
            `${mail.failures} wrong passwords were typed for the account with this address in the last ${mail.minutes} minutes, from several places. Until this slows down, each sign-in to it takes a few seconds longer; the right password still works.`,
            "If it was you, nothing to do. If not, your password held; to be safe, choose a new one (it signs out every session and every connected app).",
          ],
          button: "Choose a new password",
          footer: "Nobody but you can change your password without the mail that this address receives.",
        };
      case "sign_up_account_exists":
        return {
          subject: "You already have a Lead discovery account",
          paragraphs: [
            "Someone tried to sign up with this address, which already has an account. No new account was created.",
            "Sign in with your password, or reset it if you forgot it.",
          ],
          button: "Sign in",
          footer: "If this was not you, ignore this mail: nothing changed.",
        };
    }
  },
  fr: (mail) => {
    switch (mail.kind) {
      case "invite":
        return {
          subject: "Vous êtes invité·e dans un espace de travail sur Prospection",
          paragraphs: [
            `${mail.invitedBy ?? "L'opérateur du service"} vous invite dans l'espace de travail ${mail.workspaceName}.`,
            "Ouvrez le lien pour créer votre compte, ou pour vous connecter avec celui que vous avez et accepter. Il fonctionne une fois, pendant 7 jours.",
          ],
          button: "Rejoindre l'espace",
          footer:
            "Si vous n'attendiez pas cette invitation, ignorez ce courriel : rien ne se passe sans le lien.",
        };
      case "password_reset":
        return {
          subject: "Réinitialisez votre mot de passe Prospection",
          paragraphs: [
            "Quelqu'un a demandé à réinitialiser le mot de passe du compte de cette adresse.",
            "Ouvrez le lien pour choisir un nouveau mot de passe. Il fonctionne une fois, pendant 1 heure. Un nouveau mot de passe déconnecte toutes les sessions et toutes les applications connectées.",
          ],
          button: "Choisir un nouveau mot de passe",
          footer: "Si vous n'avez rien demandé, ignorez ce courriel : votre mot de passe ne change pas.",
        };
      case "sign_up":
        return {
          subject: "Confirmez votre compte Prospection",
          paragraphs: [
            `Ouvrez le lien pour créer votre compte et l'espace de travail ${mail.agencyName} (10 crédits gratuits).`,
            "Rien n'est créé avant. Le lien fonctionne une fois, pendant 24 heures.",
          ],
          button: "Confirmer et créer mon compte",
          footer: "Si vous ne vous êtes pas inscrit·e, ignorez ce courriel : aucun compte n'est créé.",
        };
      case "password_failures":
        return {
          subject: "Des mots de passe erronés ont été saisis pour votre compte Prospection",
          paragraphs: [
            `${mail.failures} mots de passe erronés ont été saisis pour le compte de cette adresse dans les ${mail.minutes} dernières minutes, depuis plusieurs endroits. Tant que cela continue, chaque connexion à ce compte prend quelques secondes de plus ; le bon mot de passe fonctionne toujours.`,
            "Si c'était vous, rien à faire. Sinon, votre mot de passe a tenu ; par prudence, choisissez-en un nouveau (cela déconnecte toutes les sessions et toutes les applications connectées).",
          ],
          button: "Choisir un nouveau mot de passe",
          footer:
            "Personne d'autre que vous ne peut changer votre mot de passe sans le courriel que reçoit cette adresse.",
        };
      case "sign_up_account_exists":
        return {
          subject: "Vous avez déjà un compte Prospection",
          paragraphs: [
            "Quelqu'un a tenté de s'inscrire avec cette adresse, qui a déjà un compte. Aucun nouveau compte n'a été créé.",
            "Connectez-vous avec votre mot de passe, ou réinitialisez-le si vous l'avez oublié.",
          ],
          button: "Se connecter",
          footer: "Si ce n'était pas vous, ignorez ce courriel : rien n'a changé.",
        };
    }
  },
};

/** One account mail in the reader's language, as plain text and as HTML with the same words. */
export function accountMail(input: MailKind & { to: string; language: Language; link: string }): AccountMail {
  const said = words[input.language](input);
  const text = [...said.paragraphs, "", input.link, "", said.footer, ""].join("\n");
  const paragraphs = said.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join("\n");
  const html = `<!doctype html>
<html lang="${input.language}"><head><meta charset="utf-8"><title>${escapeHtml(said.subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; max-width: 36rem">
${paragraphs}
<p><a href="${escapeHtml(input.link)}" style="display: inline-block; padding: 0.6rem 1rem; background: #1d4ed8; color: #ffffff; text-decoration: none; border-radius: 4px">${escapeHtml(said.button)}</a></p>
<p style="font-size: 0.9rem">${escapeHtml(input.link)}</p>
<p style="font-size: 0.9rem; color: #555555">${escapeHtml(said.footer)}</p>
</body></html>
`;
  return { kind: input.kind, to: input.to, subject: said.subject, text, html };
}
