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
  walletHint: 'Ou scannez ce code avec votre portefeuille numérique. L’offre ne sert qu’une fois.',
  footer: 'Vous recevez cet e-mail parce que {issuer} vous a délivré un certificat via Accolade.',
  unsubscribe: 'Ne plus recevoir d’e-mails de badges de {issuer}',
  reminder: {
    subject: 'Votre badge « {badge} » de {issuer} expire le {date}',
    heading: 'Votre badge expire bientôt',
    body: 'Le certificat « {badge} » que {issuer} vous a décerné expire le {date}. Demandez à {issuer} comment le renouveler.',
    expiresOn: 'Expire le {date}',
  },
  unsubscribePage: {
    title: 'Se désabonner',
    question: 'Ne plus recevoir d’e-mails sur les nouveaux badges de {issuer} ?',
    button: 'Se désabonner',
    done: 'C’est fait : {issuer} ne vous écrira plus au sujet de nouveaux badges. Vos badges restent valides.',
    unknown: 'Ce lien de désabonnement n’est pas valide.',
  },
};
