import type { ConsentMessages } from './en.js';

export const es: ConsentMessages = {
  title: '¿Autorizar a {client}?',
  heading: '¿Autorizar a {client} a usar tus insignias?',
  asks: '{client} volverá a {host} y solicita:',
  scopes: {
    'credential.readonly': 'Permiso para leer las AchievementCredentials de la entidad autenticada.',
    'credential.upsert': 'Permiso para crear o actualizar las AchievementCredentials de la entidad autenticada.',
    'profile.readonly': 'Permiso para leer el perfil de la entidad autenticada.',
    'profile.update': 'Permiso para actualizar el perfil de la entidad autenticada.',
  },
  ends: 'Si eliminas tu cuenta de la mochila de insignias, este acceso termina.',
  expired: {
    title: 'Empezar de nuevo',
    heading: 'Esta solicitud ha caducado',
    body: 'Vuelve a la aplicación que te ha enviado aquí y empieza de nuevo.',
  },
  allow: 'Autorizar',
  deny: 'Denegar',
};
