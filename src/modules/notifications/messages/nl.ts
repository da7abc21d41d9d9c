import type { NotificationMessages } from './types.js';

export const nl: NotificationMessages = {
  name: 'Nederlands',
  locale: 'nl-NL',
  subject: '{issuer} heeft je „{badge}” toegekend',
  heading: 'Je hebt een badge behaald',
  body: '{issuer} heeft je het certificaat „{badge}” toegekend. Iedereen met wie je het deelt, kan controleren dat het echt is.',
  issuedOn: 'Uitgegeven op {date}',
  viewBadge: 'Je badge bekijken en controleren',
  addToLinkedIn: 'Toevoegen aan LinkedIn',
  downloadImage: 'De badge als afbeelding downloaden',
  downloadOb3: 'Downloaden (Open Badges 3.0)',
  addToWallet: 'Toevoegen aan je wallet',
  addToLcw: 'Toevoegen aan de Learner Credential Wallet',
  yourCertificate: 'Je certificaat (PDF)',
  walletHint: 'Of scan deze code met je digitale wallet. Het aanbod werkt één keer.',
  footer: 'Je ontvangt deze e-mail omdat {issuer} je via Accolade een certificaat heeft uitgegeven.',
  unsubscribe: 'Afmelden voor badge-e-mails van {issuer}',
  replacement: {
    renewal: {
      subject: '{issuer} heeft je badge „{badge}” verlengd',
      heading: 'Je badge is verlengd',
      body: '{issuer} heeft je certificaat „{badge}” verlengd. De verlengde badge vervangt de vorige; deel voortaan deze.',
    },
    reissue: {
      subject: '{issuer} heeft je badge „{badge}” opnieuw uitgegeven',
      heading: 'Je badge is opnieuw uitgegeven',
      body: '{issuer} heeft je certificaat „{badge}” opnieuw uitgegeven. De nieuwe badge vervangt de vorige; deel voortaan deze.',
    },
    correction: {
      subject: '{issuer} heeft je badge „{badge}” gecorrigeerd',
      heading: 'Je badge is gecorrigeerd',
      body: '{issuer} heeft de naam op je certificaat „{badge}” gecorrigeerd. De gecorrigeerde badge vervangt de vorige; deel voortaan deze.',
    },
  },
  reminder: {
    subject: 'Je badge „{badge}” van {issuer} verloopt op {date}',
    heading: 'Je badge verloopt binnenkort',
    body: 'Het certificaat „{badge}” dat {issuer} je heeft toegekend, verloopt op {date}. Vraag {issuer} hoe je het verlengt.',
    bodyWithLink: 'Het certificaat „{badge}” dat {issuer} je heeft toegekend, verloopt op {date}.',
    expiresOn: 'Verloopt op {date}',
    renew: 'Je badge verlengen',
    issuerNote: 'Een bericht van {issuer}:',
  },
  unsubscribePage: {
    title: 'Afmelden',
    question:
      'Geen e-mails over badges van {issuer} meer ontvangen? Je krijgt dan geen berichten over nieuwe badges en geen herinneringen over verlopen meer.',
    button: 'Afmelden',
    done: 'Je bent afgemeld: {issuer} stuurt je geen badge-e-mails meer. Je badges blijven geldig en controleerbaar.',
    undo: 'Was dit een vergissing? Neem contact op met {issuer} om hun e-mails weer te ontvangen.',
    unknown: 'Deze afmeldlink is niet geldig. Misschien is hij verkeerd overgenomen; de link in de e-mail werkt nog.',
  },
  signIn: {
    subject: 'Je aanmeldlink voor je badges',
    intro: 'Open deze link om je aan te melden bij je rugzak, waar elke badge staat die aan dit adres is uitgegeven:',
    button: 'Aanmelden bij je rugzak',
    expiry:
      'De link werkt één keer, {minutes} minuten lang. Heb je hem niet aangevraagd? Negeer deze e-mail dan: er gebeurt niets.',
    from: 'Badges',
  },
};
