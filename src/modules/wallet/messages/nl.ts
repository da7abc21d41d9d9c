import type { WalletPageMessages } from './en.js';

export const nl: WalletPageMessages = {
  skip: 'Naar de inhoud',
  title: '‘{badge}’ aan uw wallet toevoegen',
  lead: '{issuer} heeft u ‘{badge}’ toegekend. Met deze pagina zet u het in een digitale wallet op uw telefoon.',
  whatHeading: 'Wat is een wallet?',
  whatBody:
    'Een digitale wallet is een app die uw badges en certificaten op uw telefoon bewaart. Elk bewijs blijft ondertekend door de uitgever, zodat u het aan een werkgever of school kunt tonen, die het controleert zonder {issuer} iets te vragen.',
  whichHeading: 'Welke wallets werken',
  whichLcw:
    'De Learner Credential Wallet, een gratis app voor iPhone en Android, gemaakt door de universiteiten van het Digital Credentials Consortium.',
  whichOid4vci:
    'Wallets die OpenID4VCI-aanbiedingen (OpenID for Verifiable Credential Issuance) aannemen, zoals de Sphereon Wallet.',
  howHeading: 'Toevoegen',
  howQr: 'Scan deze code met uw wallet-app, of open deze pagina op uw telefoon en tik op een knop.',
  qrLabel: 'QR-code van de aanbieding, om te scannen met een wallet-app',
  openWallet: 'Openen in mijn wallet-app',
  openLcw: 'Toevoegen aan de Learner Credential Wallet',
  once: 'De aanbieding werkt één keer, tot {date}. Vraag daarna {issuer} om een nieuwe.',
  txCode: 'Uw wallet vraagt om een code: het is de code die uw leerplatform naast deze aanbieding toont.',
  withoutHeading: 'Geen wallet? Er gaat niets verloren',
  withoutBody:
    'U hebt geen wallet nodig. Uw badge staat al online: de verificatiepagina laat iedereen zien dat hij echt is, en daar kunt u hem aan LinkedIn toevoegen of downloaden.',
  viewBadge: 'Bekijk en verifieer uw badge',
  downloadOb3: 'Downloaden (Open Badges 3.0-bestand)',
  downloadCertificate: 'Uw certificaat downloaden',
  usedHeading: 'Deze aanbieding is al gebruikt',
  usedBody:
    'Het bewijs staat al in een wallet. Een aanbieding werkt maar één keer; vraag {issuer} om een nieuwe als u het in een andere wallet wilt.',
  expiredHeading: 'Deze aanbieding is verlopen',
  expiredBody:
    'Wallet-aanbiedingen gelden een beperkte tijd. Vraag {issuer} om een nieuwe; uw badge zelf blijft geldig.',
  revokedHeading: 'Dit bewijs kan niet meer worden toegevoegd',
  revokedBody: '{issuer} heeft dit bewijs ingetrokken, dus het kan niet in een wallet.',
  notFoundTitle: 'Aanbieding niet gevonden',
  notFoundBody: 'Bij dit adres hoort geen wallet-aanbieding. Controleer of de link uit uw e-mail volledig is.',
  languages: 'Taal',
};
