/**
 * The Open Badges API's consent page in English, the reference every other language is typed
 * against. `{name}` placeholders are filled with escaped values (or the page's own markup for
 * `{client}` and `{host}`); keep them in every translation. The scopes' English texts are OB 3.0
 * §6.1's descriptions.
 */
export const en = {
  title: 'Allow {client}?',
  heading: 'Allow {client} to use your badges?',
  asks: '{client} will be sent back to {host} and asks for:',
  scopes: {
    'credential.readonly': 'Permission to read AchievementCredentials for the authenticated entity.',
    'credential.upsert': 'Permission to create or update AchievementCredentials for the authenticated entity.',
    'profile.readonly': 'Permission to read the profile for the authenticated entity.',
    'profile.update': 'Permission to update the profile for the authenticated entity.',
  },
  ends: 'Deleting your backpack account ends this access.',
  expired: {
    title: 'Start again',
    heading: 'This request has expired',
    body: 'Go back to the app that sent you here and start again.',
  },
  allow: 'Allow',
  deny: 'Deny',
};

export type ConsentMessages = typeof en;
