import type { CertificateMessages } from './types.js';

export const nl: CertificateMessages = {
  defaultTitle: 'Certificaat van verdienste',
  defaultWording: 'heeft op {issuedOn} met succes {badgeName} behaald bij {issuerName}.',
  awardedTo: 'Toegekend aan',
  issuedByOn: 'Uitgegeven door {issuer} op {date}',
  expires: 'Verloopt op {date}',
  credentialId: 'Credential-ID {id}',
  verifyAt: 'Controleer op {url}',
  noExpiry: 'geen vervaldatum',
  subject: '{badge}, toegekend door {issuer}',
  logoAlt: 'Logo van {issuer}',
  signatureAlt: 'Handtekening van {name}',
  qrAlt: 'QR-code die de verificatiepagina {url} opent',
};
