/** Why an address got its email_status (shared/audit/email-status.ts), in words: English. */
export const enMailStatus = {
  emailReason_own_domain: "{domain} has a mail server, and it is the website's own domain.",
  emailReason_free_mail:
    "{domain} is a free webmail or internet provider's mailbox, not the business's own domain: mail may arrive, but is less likely to reach the business.",
  emailReason_other_domain:
    "{domain} is another domain than the website's: mail may arrive, but is less likely to reach the business.",
  emailReason_disposable: "{domain} is a disposable-mail service: nothing sent there reaches the business.",
  emailReason_not_public:
    "{domain} is not a domain of the public internet (a reserved name, like the demo's .example addresses): no mail can reach it.",
  emailReason_no_domain: "The domain {domain} does not exist.",
  emailReason_null_mx: "{domain} declares that it accepts no mail (a null MX record).",
  emailReason_no_mail: "No mail server for {domain}: it has neither a mail record nor an address record.",
  emailReason_dns_failed: "DNS did not answer for {domain} in time; the next check of the site asks again.",
  emailReasonUnrecorded_deliverable: "A mail server on the website's own domain.",
  emailReasonUnrecorded_risky: "A free webmail, or another domain than the website's.",
  emailReasonUnrecorded_undeliverable:
    "No mail server for the domain, or a disposable or reserved domain (this check predates the detailed reason).",
  emailReasonUnrecorded_unknown:
    "DNS did not answer, or the address was found before addresses were checked. The next check of the site tells.",
};
