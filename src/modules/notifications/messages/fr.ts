import type { NotificationMessages } from './types.js';

export const fr: NotificationMessages = {
  name: 'Français',
  locale: 'fr-FR',
  subject: '{issuer} vous a décerné « {badge} »',
  heading: 'Vous avez obtenu un badge',
  body: '{issuer} vous a décerné le certificat « {badge} ». Toute personne avec qui vous le partagez peut vérifier son authenticité.',
  issuedOn: 'Délivré le {date}',
  viewBadge: 'Voir et vérifier votre badge',
  addToLinkedIn: 'Ajouter à LinkedIn',
  downloadImage: 'Télécharger l’image du badge',
  downloadOb3: 'Télécharger (Open Badges 3.0)',
  addToWallet: 'Ajouter à votre portefeuille',
  addToLcw: 'Ajouter au Learner Credential Wallet',
  yourCertificate: 'Votre certificat (PDF)',
  walletHint: 'Ou scannez ce code avec votre portefeuille numérique. L’offre ne sert qu’une fois.',
  footer: 'Vous recevez cet e-mail parce que {issuer} vous a délivré un certificat via Accolade.',
  unsubscribe: 'Se désabonner des e-mails de badges de {issuer}',
  replacement: {
    renewal: {
      subject: '{issuer} a renouvelé votre badge « {badge} »',
      heading: 'Votre badge a été renouvelé',
      body: '{issuer} a renouvelé votre certificat « {badge} ». Le badge renouvelé remplace le précédent ; partagez désormais celui-ci.',
    },
    reissue: {
      subject: '{issuer} a réémis votre badge « {badge} »',
      heading: 'Votre badge a été réémis',
      body: '{issuer} a réémis votre certificat « {badge} ». Le nouveau badge remplace le précédent ; partagez désormais celui-ci.',
    },
    correction: {
      subject: '{issuer} a corrigé votre badge « {badge} »',
      heading: 'Votre badge a été corrigé',
      body: '{issuer} a corrigé le nom figurant sur votre certificat « {badge} ». Le badge corrigé remplace le précédent ; partagez désormais celui-ci.',
    },
  },
  reminder: {
    subject: 'Votre badge « {badge} » de {issuer} expire le {date}',
    heading: 'Votre badge expire bientôt',
    body: 'Le certificat « {badge} » que {issuer} vous a décerné expire le {date}. Demandez à {issuer} comment le renouveler.',
    bodyWithLink: 'Le certificat « {badge} » que {issuer} vous a décerné expire le {date}.',
    expiresOn: 'Expire le {date}',
    renew: 'Renouveler votre badge',
    issuerNote: 'Un mot de {issuer} :',
  },
  unsubscribePage: {
    title: 'Se désabonner',
    question:
      'Ne plus recevoir d’e-mails de badges de {issuer} ? Vous ne recevrez plus ni annonces de badges ni rappels d’expiration de sa part.',
    button: 'Se désabonner',
    done: 'Vous êtes désabonné : {issuer} ne vous enverra plus d’e-mails de badges. Vos badges restent valides et vérifiables.',
    undo: 'En cas d’erreur, contactez {issuer} pour recevoir à nouveau ses e-mails.',
    unknown:
      'Ce lien de désabonnement n’est pas valide. Il a peut-être été mal recopié ; le lien de l’e-mail fonctionne toujours.',
  },
  signIn: {
    subject: 'Votre lien de connexion à vos badges',
    intro:
      'Ouvrez ce lien pour vous connecter à votre sac à badges, où sont rangés tous les badges délivrés à cette adresse :',
    button: 'Se connecter à votre sac à badges',
    expiry:
      'Le lien ne sert qu’une fois, pendant {minutes} minutes. Si vous ne l’avez pas demandé, ignorez cet e-mail : rien ne se passera.',
    from: 'Badges',
  },
};
