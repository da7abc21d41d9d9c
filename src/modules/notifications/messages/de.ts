import type { NotificationMessages } from './types.js';

export const de: NotificationMessages = {
  name: 'Deutsch',
  locale: 'de-DE',
  subject: '{issuer} hat Ihnen „{badge}“ verliehen',
  heading: 'Sie haben ein Abzeichen erhalten',
  body: '{issuer} hat Ihnen den Nachweis „{badge}“ verliehen. Alle, mit denen Sie ihn teilen, können seine Echtheit prüfen.',
  issuedOn: 'Ausgestellt am {date}',
  viewBadge: 'Abzeichen ansehen und prüfen',
  addToLinkedIn: 'Zu LinkedIn hinzufügen',
  downloadImage: 'Abzeichen als Bild herunterladen',
  downloadOb3: 'Herunterladen (Open Badges 3.0)',
  addToWallet: 'Zur Wallet hinzufügen',
  addToLcw: 'Zur Learner Credential Wallet hinzufügen',
  walletHint: 'Oder scannen Sie diesen Code mit Ihrer Nachweis-Wallet. Das Angebot gilt einmal.',
  footer: 'Sie erhalten diese E-Mail, weil {issuer} Ihnen über Accolade einen Nachweis ausgestellt hat.',
  unsubscribe: 'Keine E-Mails mehr zu Abzeichen von {issuer}',
  reminder: {
    subject: 'Ihr Abzeichen „{badge}“ von {issuer} läuft am {date} ab',
    heading: 'Ihr Abzeichen läuft bald ab',
    body: 'Der Nachweis „{badge}“, den {issuer} Ihnen verliehen hat, läuft am {date} ab. Fragen Sie {issuer}, wie Sie ihn erneuern.',
    expiresOn: 'Gültig bis {date}',
  },
  unsubscribePage: {
    title: 'Abmelden',
    question: 'Keine E-Mails mehr zu neuen Abzeichen von {issuer} erhalten?',
    button: 'Abmelden',
    done: 'Erledigt: {issuer} schreibt Ihnen nicht mehr zu neuen Abzeichen. Ihre Abzeichen bleiben gültig.',
    unknown: 'Dieser Abmeldelink ist nicht gültig.',
  },
};
