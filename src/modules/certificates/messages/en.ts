import type { CertificateMessages } from './types.js';

export const en: CertificateMessages = {
  defaultTitle: 'Certificate of Achievement',
  defaultWording: 'has successfully earned {badgeName} from {issuerName} on {issuedOn}.',
  awardedTo: 'Awarded to',
  issuedByOn: 'Issued by {issuer} on {date}',
  expires: 'Expires {date}',
  credentialId: 'Credential ID {id}',
  verifyAt: 'Verify at {url}',
  noExpiry: 'no expiry',
  subject: '{badge}, awarded by {issuer}',
  logoAlt: '{issuer} logo',
  signatureAlt: 'Signature of {name}',
  qrAlt: 'QR code that opens the verification page {url}',
};
