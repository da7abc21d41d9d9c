import type { ConsentMessages } from './en.js';

export const de: ConsentMessages = {
  title: '{client} erlauben?',
  heading: '{client} erlauben, Ihre Badges zu verwenden?',
  asks: '{client} wird zu {host} zurückgeleitet und bittet um:',
  scopes: {
    'credential.readonly': 'Die Berechtigung, AchievementCredentials der angemeldeten Person zu lesen.',
    'credential.upsert':
      'Die Berechtigung, AchievementCredentials der angemeldeten Person anzulegen oder zu aktualisieren.',
    'profile.readonly': 'Die Berechtigung, das Profil der angemeldeten Person zu lesen.',
    'profile.update': 'Die Berechtigung, das Profil der angemeldeten Person zu aktualisieren.',
  },
  ends: 'Wenn Sie Ihr Rucksack-Konto löschen, endet dieser Zugriff.',
  expired: {
    title: 'Neu beginnen',
    heading: 'Diese Anfrage ist abgelaufen',
    body: 'Kehren Sie zu der App zurück, die Sie hierher geschickt hat, und beginnen Sie neu.',
  },
  allow: 'Erlauben',
  deny: 'Ablehnen',
};
