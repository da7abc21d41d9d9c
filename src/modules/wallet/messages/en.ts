/**
 * The wallet offer page in English, the reference every other language is typed against. `{name}`
 * placeholders are filled with escaped values; keep them in every translation.
 */
export const en = {
  skip: 'Skip to content',
  title: 'Add “{badge}” to your wallet',
  lead: '{issuer} awarded you “{badge}”. This page puts it into a digital credential wallet on your phone.',
  whatHeading: 'What is a wallet?',
  whatBody:
    'A digital credential wallet is an app that keeps your badges and certificates on your phone. Each one stays signed by its issuer, so you can show it to an employer or a school, who can check it without asking {issuer}.',
  whichHeading: 'Which wallets work',
  whichLcw:
    'The Learner Credential Wallet, a free app for iPhone and Android made by universities in the Digital Credentials Consortium.',
  whichOid4vci:
    'Wallets that accept OpenID4VCI credential offers (OpenID for Verifiable Credential Issuance), such as the Sphereon Wallet.',
  howHeading: 'Add it',
  howQr: 'Scan this code with your wallet app, or open this page on your phone and tap a button.',
  qrLabel: 'QR code of the credential offer, for a wallet app to scan',
  openWallet: 'Open in my wallet app',
  openLcw: 'Add to the Learner Credential Wallet',
  once: 'The offer works once, until {date}. After that, ask {issuer} for a new one.',
  txCode: 'Your wallet will ask for a code: it is the code your course platform shows beside this offer.',
  withoutHeading: 'No wallet? Nothing is lost',
  withoutBody:
    'You do not need a wallet. Your badge is already online: its verification page shows anyone it is genuine, and you can add it to LinkedIn or download it from there.',
  viewBadge: 'View and verify your badge',
  downloadOb3: 'Download it (Open Badges 3.0 file)',
  downloadCertificate: 'Download your certificate',
  usedHeading: 'This offer has been used',
  usedBody:
    'The credential has already gone into a wallet. An offer works only once; ask {issuer} for a new one if you need it in another wallet.',
  expiredHeading: 'This offer has expired',
  expiredBody: 'Wallet offers work for a limited time. Ask {issuer} for a new one; your badge itself is still valid.',
  revokedHeading: 'This credential can no longer be added',
  revokedBody: '{issuer} has withdrawn this credential, so it cannot go into a wallet.',
  notFoundTitle: 'Offer not found',
  notFoundBody: 'No wallet offer matches this address. Check that the link from your email is complete.',
  languages: 'Language',
};

export type WalletPageMessages = typeof en;
