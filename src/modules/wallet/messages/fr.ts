import type { WalletPageMessages } from './en.js';

export const fr: WalletPageMessages = {
  skip: 'Aller au contenu',
  title: 'Ajouter « {badge} » à votre portefeuille',
  lead: '{issuer} vous a décerné « {badge} ». Cette page le place dans un portefeuille numérique sur votre téléphone.',
  whatHeading: 'Qu’est-ce qu’un portefeuille ?',
  whatBody:
    'Un portefeuille numérique est une application qui garde vos badges et certificats sur votre téléphone. Chacun reste signé par son émetteur : vous pouvez le montrer à un employeur ou à une école, qui le vérifie sans rien demander à {issuer}.',
  whichHeading: 'Les portefeuilles qui fonctionnent',
  whichLcw:
    'Le Learner Credential Wallet, une application gratuite pour iPhone et Android créée par les universités du Digital Credentials Consortium.',
  whichOid4vci:
    'Les portefeuilles qui acceptent les offres OpenID4VCI (OpenID for Verifiable Credential Issuance), comme Sphereon Wallet.',
  howHeading: 'L’ajouter',
  howQr:
    'Scannez ce code avec votre application de portefeuille, ou ouvrez cette page sur votre téléphone et touchez un bouton.',
  qrLabel: 'Code QR de l’offre, à scanner avec une application de portefeuille',
  openWallet: 'Ouvrir dans mon portefeuille',
  openLcw: 'Ajouter au Learner Credential Wallet',
  once: 'L’offre ne sert qu’une fois, jusqu’au {date}. Ensuite, demandez-en une nouvelle à {issuer}.',
  txCode:
    'Votre portefeuille demandera un code : c’est celui que votre plateforme de formation affiche à côté de cette offre.',
  withoutHeading: 'Pas de portefeuille ? Rien n’est perdu',
  withoutBody:
    'Un portefeuille n’est pas nécessaire. Votre badge est déjà en ligne : sa page de vérification prouve à tous qu’il est authentique, et vous pouvez l’ajouter à LinkedIn ou le télécharger depuis cette page.',
  viewBadge: 'Voir et vérifier votre badge',
  downloadOb3: 'Le télécharger (fichier Open Badges 3.0)',
  downloadCertificate: 'Télécharger votre certificat',
  usedHeading: 'Cette offre a déjà servi',
  usedBody:
    'Le certificat est déjà dans un portefeuille. Une offre ne sert qu’une fois ; demandez-en une nouvelle à {issuer} pour un autre portefeuille.',
  expiredHeading: 'Cette offre a expiré',
  expiredBody:
    'Les offres de portefeuille ont une durée limitée. Demandez-en une nouvelle à {issuer} ; votre badge, lui, reste valide.',
  revokedHeading: 'Ce certificat ne peut plus être ajouté',
  revokedBody: '{issuer} a retiré ce certificat : il ne peut pas aller dans un portefeuille.',
  notFoundTitle: 'Offre introuvable',
  notFoundBody: 'Aucune offre ne correspond à cette adresse. Vérifiez que le lien de votre e-mail est complet.',
  languages: 'Langue',
};
