import type { WalletPageMessages } from './en.js';

export const de: WalletPageMessages = {
  skip: 'Zum Inhalt springen',
  title: '„{badge}“ zur Wallet hinzufügen',
  lead: '{issuer} hat Ihnen „{badge}“ verliehen. Auf dieser Seite legen Sie es in eine Nachweis-Wallet auf Ihrem Telefon.',
  whatHeading: 'Was ist eine Wallet?',
  whatBody:
    'Eine Nachweis-Wallet ist eine App, die Ihre Abzeichen und Zertifikate auf Ihrem Telefon aufbewahrt. Jeder Nachweis bleibt von seinem Aussteller signiert: Sie können ihn Arbeitgebern oder Schulen zeigen, die ihn prüfen, ohne {issuer} zu fragen.',
  whichHeading: 'Welche Wallets funktionieren',
  whichLcw:
    'Die Learner Credential Wallet, eine kostenlose App für iPhone und Android von den Universitäten des Digital Credentials Consortium.',
  whichOid4vci:
    'Wallets, die OpenID4VCI-Angebote (OpenID for Verifiable Credential Issuance) annehmen, etwa die Sphereon Wallet.',
  howHeading: 'Hinzufügen',
  howQr:
    'Scannen Sie diesen Code mit Ihrer Wallet-App, oder öffnen Sie diese Seite auf dem Telefon und tippen Sie auf eine Schaltfläche.',
  qrLabel: 'QR-Code des Angebots, zum Scannen mit einer Wallet-App',
  openWallet: 'In meiner Wallet-App öffnen',
  openLcw: 'Zur Learner Credential Wallet hinzufügen',
  once: 'Das Angebot gilt einmal, bis zum {date}. Danach bitten Sie {issuer} um ein neues.',
  txCode: 'Ihre Wallet fragt nach einem Code: Es ist der Code, den Ihre Lernplattform neben diesem Angebot zeigt.',
  withoutHeading: 'Keine Wallet? Nichts geht verloren',
  withoutBody:
    'Sie brauchen keine Wallet. Ihr Abzeichen ist schon online: Seine Prüfseite zeigt allen, dass es echt ist, und dort können Sie es zu LinkedIn hinzufügen oder herunterladen.',
  viewBadge: 'Abzeichen ansehen und prüfen',
  downloadOb3: 'Herunterladen (Open-Badges-3.0-Datei)',
  downloadCertificate: 'Ihr Zertifikat herunterladen',
  usedHeading: 'Dieses Angebot wurde schon genutzt',
  usedBody:
    'Der Nachweis liegt bereits in einer Wallet. Ein Angebot gilt nur einmal; bitten Sie {issuer} um ein neues, wenn Sie ihn in einer weiteren Wallet brauchen.',
  expiredHeading: 'Dieses Angebot ist abgelaufen',
  expiredBody:
    'Wallet-Angebote gelten nur eine Zeit lang. Bitten Sie {issuer} um ein neues; Ihr Abzeichen selbst bleibt gültig.',
  revokedHeading: 'Dieser Nachweis kann nicht mehr hinzugefügt werden',
  revokedBody: '{issuer} hat diesen Nachweis zurückgezogen, daher kann er nicht in eine Wallet.',
  notFoundTitle: 'Angebot nicht gefunden',
  notFoundBody:
    'Zu dieser Adresse gibt es kein Wallet-Angebot. Prüfen Sie, ob der Link aus Ihrer E-Mail vollständig ist.',
  languages: 'Sprache',
};
