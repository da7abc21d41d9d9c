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
  walletHint: 'Or scan this code with your digital credential wallet. The offer works once.',
  footer: 'You receive this email because {issuer} issued you a credential through Accolade.',
  unsubscribe: 'Stop emails about badges from {issuer}',
  reminder: {
    subject: 'Your badge "{badge}" from {issuer} expires on {date}',
    heading: 'Your badge expires soon',
    body: 'The credential "{badge}" that {issuer} awarded you expires on {date}. Ask {issuer} how to renew it.',
    expiresOn: 'Expires on {date}',
  },
  unsubscribePage: {
    title: 'Unsubscribe',
    question: 'Stop receiving emails about new badges from {issuer}?',
    button: 'Unsubscribe',
    done: 'Done: {issuer} will not email you about new badges any more. Your badges stay valid.',
    unknown: 'This unsubscribe link is not valid.',
  },
};
