/**
 * One language's wording of the earner notification. `{issuer}`, `{badge}` and `{date}` are
 * replaced (and HTML-escaped where the message is HTML). Add a language by adding a file that
 * satisfies this interface and listing it in ../notifications.messages.ts.
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
  footer: string;
  unsubscribe: string;
  /** The expiry reminder's wording; `{date}` is the expiry date. */
  reminder: {
    subject: string;
    heading: string;
    body: string;
    expiresOn: string;
  };
  unsubscribePage: {
    title: string;
    question: string;
    button: string;
    done: string;
    unknown: string;
  };
}
