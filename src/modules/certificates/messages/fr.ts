import type { CertificateMessages } from './types.js';

export const fr: CertificateMessages = {
  defaultTitle: 'Certificat de réussite',
  defaultWording: 'a obtenu avec succès {badgeName} auprès de {issuerName} le {issuedOn}.',
  awardedTo: 'Décerné à',
  issuedByOn: 'Délivré par {issuer} le {date}',
  expires: 'Expire le {date}',
  credentialId: 'Identifiant du certificat {id}',
  verifyAt: 'Vérifier sur {url}',
  noExpiry: 'sans date d’expiration',
  subject: '{badge}, décerné par {issuer}',
  logoAlt: 'Logo de {issuer}',
  signatureAlt: 'Signature de {name}',
  qrAlt: 'Code QR qui ouvre la page de vérification {url}',
};
