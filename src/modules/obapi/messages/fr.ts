import type { ConsentMessages } from './en.js';

export const fr: ConsentMessages = {
  title: 'Autoriser {client}\u00a0?',
  heading: 'Autoriser {client} à utiliser vos badges\u00a0?',
  asks: '{client} sera renvoyé vers {host} et demande\u00a0:',
  scopes: {
    'credential.readonly': 'L’autorisation de lire les AchievementCredentials de l’entité authentifiée.',
    'credential.upsert':
      'L’autorisation de créer ou de mettre à jour les AchievementCredentials de l’entité authentifiée.',
    'profile.readonly': 'L’autorisation de lire le profil de l’entité authentifiée.',
    'profile.update': 'L’autorisation de mettre à jour le profil de l’entité authentifiée.',
  },
  ends: 'La suppression de votre compte de sac à badges met fin à cet accès.',
  expired: {
    title: 'Recommencer',
    heading: 'Cette demande a expiré',
    body: 'Retournez dans l’application qui vous a envoyé ici et recommencez.',
  },
  allow: 'Autoriser',
  deny: 'Refuser',
};
