import type { ClrMessages } from './en.js';

export const de: ClrMessages = {
  heading: 'Ihre Lernnachweise',
  lead: 'Jeder umfassende Lernnachweis (Comprehensive Learner Record, CLR 2.0) enthält die signierten Badges eines Lernpfads, den Sie abgeschlossen haben.',
  validUntil: 'gültig bis {date}',
  credential: 'CLR-2.0-Nachweis',
  issued: 'ausgestellt am {date}',
};
