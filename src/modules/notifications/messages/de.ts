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
  yourCertificate: 'Ihr Zertifikat (PDF)',
  walletHint: 'Oder scannen Sie diesen Code mit Ihrer Nachweis-Wallet. Das Angebot gilt einmal.',
  footer: 'Sie erhalten diese E-Mail, weil {issuer} Ihnen über Accolade einen Nachweis ausgestellt hat.',
  unsubscribe: 'E-Mails zu Abzeichen von {issuer} abbestellen',
  replacement: {
    renewal: {
      subject: '{issuer} hat Ihr Abzeichen „{badge}“ erneuert',
      heading: 'Ihr Abzeichen wurde erneuert',
      body: '{issuer} hat Ihren Nachweis „{badge}“ erneuert. Das erneuerte Abzeichen ersetzt das frühere; teilen Sie ab jetzt dieses.',
    },
    reissue: {
      subject: '{issuer} hat Ihr Abzeichen „{badge}“ neu ausgestellt',
      heading: 'Ihr Abzeichen wurde neu ausgestellt',
      body: '{issuer} hat Ihren Nachweis „{badge}“ neu ausgestellt. Das neue Abzeichen ersetzt das frühere; teilen Sie ab jetzt dieses.',
    },
    correction: {
      subject: '{issuer} hat Ihr Abzeichen „{badge}“ berichtigt',
      heading: 'Ihr Abzeichen wurde berichtigt',
      body: '{issuer} hat den Namen auf Ihrem Nachweis „{badge}“ berichtigt. Das berichtigte Abzeichen ersetzt das frühere; teilen Sie ab jetzt dieses.',
    },
  },
  reminder: {
    subject: 'Ihr Abzeichen „{badge}“ von {issuer} läuft am {date} ab',
    heading: 'Ihr Abzeichen läuft bald ab',
    body: 'Der Nachweis „{badge}“, den {issuer} Ihnen verliehen hat, läuft am {date} ab. Fragen Sie {issuer}, wie Sie ihn erneuern.',
    bodyWithLink: 'Der Nachweis „{badge}“, den {issuer} Ihnen verliehen hat, läuft am {date} ab.',
    expiresOn: 'Gültig bis {date}',
    renew: 'Abzeichen erneuern',
    issuerNote: 'Eine Nachricht von {issuer}:',
  },
  unsubscribePage: {
    title: 'Abbestellen',
    question:
      'Keine E-Mails zu Abzeichen von {issuer} mehr erhalten? Sie bekommen dann weder Nachrichten zu neuen Abzeichen noch Erinnerungen an deren Ablauf.',
    button: 'Abbestellen',
    done: 'Abbestellt: {issuer} schickt Ihnen keine E-Mails zu Abzeichen mehr. Ihre Abzeichen bleiben gültig und prüfbar.',
    undo: 'War das ein Versehen, wenden Sie sich an {issuer}, um die E-Mails wieder zu erhalten.',
    unknown:
      'Dieser Abmeldelink ist nicht gültig. Vielleicht wurde er falsch kopiert; der Link in der E-Mail funktioniert weiterhin.',
  },
  signIn: {
    subject: 'Ihr Anmeldelink zu Ihren Abzeichen',
    intro:
      'Öffnen Sie diesen Link, um sich bei Ihrem Badge-Rucksack anzumelden, in dem jedes an diese Adresse ausgestellte Abzeichen liegt:',
    button: 'Beim Badge-Rucksack anmelden',
    expiry:
      'Der Link gilt einmal, {minutes} Minuten lang. Haben Sie ihn nicht angefordert, ignorieren Sie diese E-Mail: Es passiert nichts.',
    from: 'Abzeichen',
  },
};
