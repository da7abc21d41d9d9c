import type { ConsentMessages } from './en.js';

export const nl: ConsentMessages = {
  title: '{client} toestaan?',
  heading: '{client} toestaan je badges te gebruiken?',
  asks: '{client} wordt teruggestuurd naar {host} en vraagt om:',
  scopes: {
    'credential.readonly': 'Toestemming om de AchievementCredentials van de aangemelde gebruiker te lezen.',
    'credential.upsert':
      'Toestemming om AchievementCredentials van de aangemelde gebruiker aan te maken of bij te werken.',
    'profile.readonly': 'Toestemming om het profiel van de aangemelde gebruiker te lezen.',
    'profile.update': 'Toestemming om het profiel van de aangemelde gebruiker bij te werken.',
  },
  ends: 'Als je je account van de badgerugzak verwijdert, eindigt deze toegang.',
  expired: {
    title: 'Opnieuw beginnen',
    heading: 'Dit verzoek is verlopen',
    body: 'Ga terug naar de app die je hierheen heeft gestuurd en begin opnieuw.',
  },
  allow: 'Toestaan',
  deny: 'Weigeren',
};
