/**
 * One language's wording of every email an earner gets (the award, a replacement, the expiry
 * reminder, the backpack sign-in link) and of the unsubscribe page. `{issuer}`, `{badge}`, `{date}`
 * and `{minutes}` are replaced (and HTML-escaped where the message is HTML). Add a language by
 * adding a file that satisfies this interface and listing it in ./index.ts: a
 * missing key fails the typecheck, and test/locale-catalogues.test.ts checks every file's
 * placeholders against the English ones.
 */
export interface NotificationMessages {
  /** The language's name in itself, for the settings' list. */
  name: string;
  /**
   * The locale dates are written in: day, month name, year, in UTC, as the verification page
   * writes them (en-GB there: "28 November 2026").
   */
  locale: string;
  subject: string;
  heading: string;
  body: string;
  issuedOn: string;
  viewBadge: string;
  addToLinkedIn: string;
  downloadImage: string;
  downloadOb3: string;
  /** The OpenID4VCI offer's button; the QR code beside it is described by `walletHint`. */
  addToWallet: string;
  walletHint: string;
  /** The same offer's link for the Learner Credential Wallet. */
  addToLcw: string;
  /** The earner's own certificate (issue 44), when the issuer has certificates for the badge. */
  yourCertificate: string;
  footer: string;
  unsubscribe: string;
  /**
   * A credential that replaces an earlier one (issue 46: renewal, reissue, name correction): the
   * subject, heading and first sentence; the rest of the message is the award's.
   */
  replacement: Record<'renewal' | 'reissue' | 'correction', { subject: string; heading: string; body: string }>;
  /** The expiry reminder's wording; `{date}` is the expiry date. */
  reminder: {
    subject: string;
    heading: string;
    body: string;
    /** Used instead of `body` when the issuer gave a renewal link: the link says how. */
    bodyWithLink: string;
    expiresOn: string;
    /** The renewal or re-enrolment link's button (the issuer's URL, from the settings). */
    renew: string;
    /** Introduces the issuer's own text, quoted as the issuer wrote it. */
    issuerNote: string;
  };
  unsubscribePage: {
    title: string;
    question: string;
    button: string;
    done: string;
    /** Under `done`: how to get the emails again. */
    undo: string;
    unknown: string;
  };
  /** The backpack's sign-in email; `{minutes}` is how long the link works. */
  signIn: {
    subject: string;
    intro: string;
    button: string;
    expiry: string;
    from: string;
  };
}
