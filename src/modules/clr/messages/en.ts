/**
 * The backpack's section of the earner's learner records (clr.pages.ts) in English, the reference
 * every other language is typed against; keep the `{date}` placeholders.
 */
export const en = {
  heading: 'Your learner records',
  lead: 'Each Comprehensive Learner Record (CLR 2.0) holds the signed badges of a pathway you completed.',
  validUntil: 'valid until {date}',
  credential: 'CLR 2.0 credential',
  issued: 'issued {date}',
};

export type ClrMessages = typeof en;
