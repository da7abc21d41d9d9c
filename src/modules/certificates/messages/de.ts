import type { CertificateMessages } from './types.js';

export const de: CertificateMessages = {
  defaultTitle: 'Leistungszertifikat',
  defaultWording: 'hat am {issuedOn} {badgeName} von {issuerName} erfolgreich erworben.',
  awardedTo: 'Verliehen an',
  issuedByOn: 'Ausgestellt von {issuer} am {date}',
  expires: 'Gültig bis {date}',
  credentialId: 'Nachweis-ID {id}',
  verifyAt: 'Prüfen unter {url}',
  noExpiry: 'unbefristet',
  subject: '{badge}, verliehen von {issuer}',
  logoAlt: 'Logo von {issuer}',
  signatureAlt: 'Unterschrift von {name}',
  qrAlt: 'QR-Code, der die Prüfseite {url} öffnet',
};
