import type { WalletPageMessages } from './en.js';

export const es: WalletPageMessages = {
  skip: 'Ir al contenido',
  title: 'Añadir «{badge}» a su cartera',
  lead: '{issuer} le ha otorgado «{badge}». Esta página lo guarda en una cartera digital de credenciales en su teléfono.',
  whatHeading: '¿Qué es una cartera?',
  whatBody:
    'Una cartera digital de credenciales es una aplicación que guarda sus insignias y certificados en el teléfono. Cada uno sigue firmado por su emisor, así que puede mostrarlo a una empresa o a un centro de estudios, que lo comprueba sin preguntar a {issuer}.',
  whichHeading: 'Qué carteras funcionan',
  whichLcw:
    'Learner Credential Wallet, una aplicación gratuita para iPhone y Android creada por las universidades del Digital Credentials Consortium.',
  whichOid4vci:
    'Las carteras que aceptan ofertas OpenID4VCI (OpenID for Verifiable Credential Issuance), como Sphereon Wallet.',
  howHeading: 'Añadirla',
  howQr: 'Escanee este código con su aplicación de cartera, o abra esta página en el teléfono y pulse un botón.',
  qrLabel: 'Código QR de la oferta, para escanearlo con una aplicación de cartera',
  openWallet: 'Abrir en mi cartera',
  openLcw: 'Añadir a Learner Credential Wallet',
  once: 'La oferta sirve una sola vez, hasta el {date}. Después, pida una nueva a {issuer}.',
  txCode: 'Su cartera le pedirá un código: es el que muestra su plataforma de formación junto a esta oferta.',
  withoutHeading: '¿Sin cartera? No pierde nada',
  withoutBody:
    'No necesita una cartera. Su insignia ya está en línea: su página de verificación demuestra a cualquiera que es auténtica, y desde ella puede añadirla a LinkedIn o descargarla.',
  viewBadge: 'Ver y verificar su insignia',
  downloadOb3: 'Descargarla (archivo Open Badges 3.0)',
  downloadCertificate: 'Descargar su certificado',
  usedHeading: 'Esta oferta ya se ha usado',
  usedBody:
    'La credencial ya está en una cartera. Una oferta sirve una sola vez; pida una nueva a {issuer} si la necesita en otra cartera.',
  expiredHeading: 'Esta oferta ha caducado',
  expiredBody:
    'Las ofertas de cartera duran un tiempo limitado. Pida una nueva a {issuer}; su insignia sigue siendo válida.',
  revokedHeading: 'Esta credencial ya no se puede añadir',
  revokedBody: '{issuer} ha retirado esta credencial, así que no puede ir a una cartera.',
  notFoundTitle: 'Oferta no encontrada',
  notFoundBody: 'Ninguna oferta corresponde a esta dirección. Compruebe que el enlace de su correo está completo.',
  languages: 'Idioma',
};
