import type { ClrMessages } from './en.js';

export const nl: ClrMessages = {
  heading: 'Je leerdossiers',
  lead: 'Elk volledig leerdossier (Comprehensive Learner Record, CLR 2.0) bevat de ondertekende badges van een leerroute die je hebt afgerond.',
  validUntil: 'geldig tot {date}',
  credential: 'CLR 2.0-credential',
  issued: 'uitgereikt op {date}',
};
