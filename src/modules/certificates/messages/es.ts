import type { CertificateMessages } from './types.js';

export const es: CertificateMessages = {
  defaultTitle: 'Certificado de logro',
  defaultWording: 'ha obtenido con éxito {badgeName} de {issuerName} el {issuedOn}.',
  awardedTo: 'Otorgado a',
  issuedByOn: 'Emitido por {issuer} el {date}',
  expires: 'Vence el {date}',
  credentialId: 'ID de la credencial {id}',
  verifyAt: 'Verifíquelo en {url}',
  noExpiry: 'sin vencimiento',
  subject: '{badge}, otorgado por {issuer}',
  logoAlt: 'Logotipo de {issuer}',
  signatureAlt: 'Firma de {name}',
  qrAlt: 'Código QR que abre la página de verificación {url}',
};
