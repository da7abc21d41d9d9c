import type { NotificationMessages } from './types.js';

export const en: NotificationMessages = {
  name: 'English',
  locale: 'en-GB',
  subject: '{issuer} awarded you "{badge}"',
  heading: 'You have earned a badge',
  body: '{issuer} has awarded you the credential "{badge}". Anyone you share it with can check it is genuine.',
  issuedOn: 'Issued on {date}',
  viewBadge: 'View and verify your badge',
  addToLinkedIn: 'Add to LinkedIn',
  downloadImage: 'Download the badge image',
  downloadOb3: 'Download (Open Badges 3.0)',
  addToWallet: 'Add to your wallet',
  addToLcw: 'Add to the Learner Credential Wallet',
  yourCertificate: 'Your certificate (PDF)',
  walletHint: 'Or scan this code with your digital credential wallet. The offer works once.',
  footer: 'You receive this email because {issuer} issued you a credential through Accolade.',
  unsubscribe: 'Unsubscribe from badge emails from {issuer}',
  replacement: {
    renewal: {
      subject: '{issuer} renewed your badge "{badge}"',
      heading: 'Your badge has been renewed',
      body: '{issuer} has renewed your credential "{badge}". The renewed badge replaces the earlier one; share this one from now on.',
    },
    reissue: {
      subject: '{issuer} reissued your badge "{badge}"',
      heading: 'Your badge has been reissued',
      body: '{issuer} has reissued your credential "{badge}". The new badge replaces the earlier one; share this one from now on.',
    },
    correction: {
      subject: '{issuer} corrected your badge "{badge}"',
      heading: 'Your badge has been corrected',
      body: '{issuer} has corrected the name on your credential "{badge}". The corrected badge replaces the earlier one; share this one from now on.',
    },
  },
  reminder: {
    subject: 'Your badge "{badge}" from {issuer} expires on {date}',
    heading: 'Your badge expires soon',
    body: 'The credential "{badge}" that {issuer} awarded you expires on {date}. Ask {issuer} how to renew it.',
    bodyWithLink: 'The credential "{badge}" that {issuer} awarded you expires on {date}.',
    expiresOn: 'Expires on {date}',
    renew: 'Renew your badge',
    issuerNote: 'A note from {issuer}:',
  },
  unsubscribePage: {
    title: 'Unsubscribe',
    question:
      'Stop receiving emails about badges from {issuer}? You will get no more award messages or expiry reminders from them.',
    button: 'Unsubscribe',
    done: 'You are unsubscribed: {issuer} will send you no more badge emails. Your badges stay valid and can still be verified.',
    undo: 'If this was a mistake, contact {issuer} to receive their emails again.',
    unknown: 'This unsubscribe link is not valid. It may have been mistyped; the link in the email still works.',
  },
  signIn: {
    subject: 'Your sign-in link to your badges',
    intro: 'Open this link to sign in to your backpack, where every badge issued to this address is kept:',
    button: 'Sign in to your backpack',
    expiry:
      'The link works once, for {minutes} minutes. If you did not ask for it, ignore this email: nothing happens.',
    from: 'Badges',
  },
};
