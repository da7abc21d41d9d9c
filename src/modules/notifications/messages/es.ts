import type { NotificationMessages } from './types.js';

export const es: NotificationMessages = {
  name: 'Español',
  locale: 'es-ES',
  subject: '{issuer} te ha otorgado «{badge}»',
  heading: 'Has obtenido una insignia',
  body: '{issuer} te ha otorgado la credencial «{badge}». Cualquier persona con quien la compartas puede comprobar que es auténtica.',
  issuedOn: 'Emitida el {date}',
  viewBadge: 'Ver y verificar tu insignia',
  addToLinkedIn: 'Añadir a LinkedIn',
  downloadImage: 'Descargar la imagen de la insignia',
  downloadOb3: 'Descargar (Open Badges 3.0)',
  addToWallet: 'Añadir a tu cartera',
  addToLcw: 'Añadir a Learner Credential Wallet',
  yourCertificate: 'Tu certificado (PDF)',
  walletHint: 'O escanea este código con tu cartera de credenciales digitales. La oferta sirve una sola vez.',
  footer: 'Recibes este correo porque {issuer} te emitió una credencial a través de Accolade.',
  unsubscribe: 'Darse de baja de los correos de insignias de {issuer}',
  replacement: {
    renewal: {
      subject: '{issuer} ha renovado tu insignia «{badge}»',
      heading: 'Tu insignia se ha renovado',
      body: '{issuer} ha renovado tu credencial «{badge}». La insignia renovada sustituye a la anterior; comparte esta a partir de ahora.',
    },
    reissue: {
      subject: '{issuer} ha reemitido tu insignia «{badge}»',
      heading: 'Tu insignia se ha reemitido',
      body: '{issuer} ha reemitido tu credencial «{badge}». La nueva insignia sustituye a la anterior; comparte esta a partir de ahora.',
    },
    correction: {
      subject: '{issuer} ha corregido tu insignia «{badge}»',
      heading: 'Tu insignia se ha corregido',
      body: '{issuer} ha corregido el nombre de tu credencial «{badge}». La insignia corregida sustituye a la anterior; comparte esta a partir de ahora.',
    },
  },
  reminder: {
    subject: 'Tu insignia «{badge}» de {issuer} caduca el {date}',
    heading: 'Tu insignia caduca pronto',
    body: 'La credencial «{badge}» que te otorgó {issuer} caduca el {date}. Pregunta a {issuer} cómo renovarla.',
    bodyWithLink: 'La credencial «{badge}» que te otorgó {issuer} caduca el {date}.',
    expiresOn: 'Caduca el {date}',
    renew: 'Renovar tu insignia',
    issuerNote: 'Un mensaje de {issuer}:',
  },
  unsubscribePage: {
    title: 'Darse de baja',
    question:
      '¿Dejar de recibir correos sobre insignias de {issuer}? No recibirás más avisos de insignias ni recordatorios de caducidad de su parte.',
    button: 'Darse de baja',
    done: 'Te has dado de baja: {issuer} no te enviará más correos de insignias. Tus insignias siguen siendo válidas y verificables.',
    undo: 'Si ha sido un error, ponte en contacto con {issuer} para volver a recibir sus correos.',
    unknown: 'Este enlace para darse de baja no es válido. Quizá se copió mal; el enlace del correo sigue funcionando.',
  },
  signIn: {
    subject: 'Tu enlace para acceder a tus insignias',
    intro:
      'Abre este enlace para acceder a tu mochila, donde se guardan todas las insignias emitidas a esta dirección:',
    button: 'Acceder a tu mochila',
    expiry:
      'El enlace sirve una sola vez, durante {minutes} minutos. Si no lo has pedido, ignora este correo: no pasará nada.',
    from: 'Insignias',
  },
};
