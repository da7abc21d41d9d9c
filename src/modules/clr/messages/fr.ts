import type { ClrMessages } from './en.js';

export const fr: ClrMessages = {
  heading: 'Vos relevés d’apprentissage',
  lead: 'Chaque relevé complet d’apprentissage (CLR 2.0) contient les badges signés d’un parcours que vous avez terminé.',
  validUntil: 'valable jusqu’au {date}',
  credential: 'Attestation CLR 2.0',
  issued: 'délivré le {date}',
};
