/**
 * The backpack's pages in English, the reference every other language is typed against. `{name}`
 * placeholders are filled with escaped values; keep them in every translation. A pair `…One` /
 * `…Other` is chosen by the language's plural rule (Intl.PluralRules).
 */
export const en = {
  signIn: {
    title: 'Sign in to your backpack',
    heading: 'Your badges, in one place',
    lead: 'Enter the email address your badges were sent to. We will email you a link that signs you in.',
    email: 'Email',
    submit: 'Send me a sign-in link',
    invalidEmail: 'Enter an email address, such as name@example.com.',
    unavailable: 'Sign-in by email is not set up on this service.',
  },
  linkSent: {
    title: 'Check your email',
    body: 'If that address can receive email, a sign-in link is on its way. It works once, for {minutes} minutes.',
    back: 'Back',
  },
  confirm: {
    title: 'Sign in to your backpack',
    submit: 'Sign in',
  },
  notStartedHere: {
    title: 'Open the link again',
    heading: 'Open the link from your email again',
    body: 'This sign-in did not start on the page the link opens, in this browser, so nobody was signed in. Open the link from your email and press Sign in there.',
  },
  linkUnusable: {
    title: 'This link no longer works',
    body: 'A sign-in link works once, for a short time. Ask for a new one.',
    signIn: 'Sign in',
  },
  home: {
    title: 'Your backpack',
    signOut: 'Sign out',
    none: 'No badges have been issued to your address on this service yet.',
    countOne: '{count} badge from every issuer on this service.',
    countOther: '{count} badges from every issuer on this service.',
    account: 'Your account',
    deleteAccount: 'Delete my account',
  },
  badge: {
    issued: 'issued {date}',
    expires: 'expires {date}',
    status: 'Status: {status}',
    verify: 'Verification page',
    download: 'Download image',
    ob3: 'Open Badges 3.0 credential',
    ob2: 'Open Badges 2.0 assertion',
    linkedIn: 'Add to LinkedIn',
    wallet: 'Add to a wallet',
  },
  /** A badge's status on this service (BadgeStatus). */
  status: {
    valid: 'valid',
    expired: 'expired',
    revoked: 'revoked',
  },
  /** The outcome of checking an imported or app-sent badge with its issuer. */
  check: {
    verified: 'verified',
    expired: 'expired',
    revoked: 'revoked by its issuer',
    suspended: 'suspended by its issuer',
    unverified: 'not verified',
  },
  apps: {
    heading: 'Connected apps',
    none: 'No app can use your badges.',
    allowed: 'Allowed on {date} to:',
    revoke: 'Revoke access',
  },
  sent: {
    heading: 'Sent by apps',
    sentBy: 'Sent by {app} on {date} through the Open Badges API',
    notChecked: 'Not checked yet.',
    checked: 'Checked {date}.',
    check: 'Check it',
    checkAgain: 'Check again',
  },
  imports: {
    title: 'Import a badge',
    heading: 'Import a badge from another platform',
    lead: 'Paste the address of an Open Badges 2.0 assertion, or an Open Badges 3.0 credential (its address, its JSON or its compact JWS), or choose a badge image with the badge baked in (PNG or SVG). The backpack checks it with its issuer before showing it.',
    source: 'Badge address, JSON or JWS',
    image: 'Or a baked badge image',
    submit: 'Import',
    back: 'Back to your backpack',
    section: 'Imported badges',
    none: 'You have not imported any badges from other platforms.',
    link: 'Import a badge',
    imported: 'Imported (Open Badges {version}), checked {date}',
    original: 'original',
    checkAgain: 'Check again',
    remove: 'Remove',
  },
  collections: {
    heading: 'Collections',
    empty: 'Group your badges into collections; a collection can have a public page.',
    label: 'Collection {name}',
    public: 'Public:',
    publicLink: 'its public page',
    private: 'Private: only you see it.',
    remove: 'Remove',
    addLabel: 'Add a badge to {name}',
    add: 'Add',
    makePublic: 'Make public',
    makePrivate: 'Make private',
    delete: 'Delete collection',
    newLabel: 'New collection',
    create: 'Create collection',
    earner: 'Badges of {name}',
    noBadges: 'This collection has no badges.',
    verify: 'Verify this badge',
    goneTitle: 'Not found',
    goneHeading: 'This collection is not public',
    goneBody: 'Its owner made it private, or the address is wrong.',
  },
  deleteAccount: {
    title: 'Delete your account',
    bodyOne:
      'This removes your account and its links to {count} badge. The issuers keep their records; you can sign in again later and find your badges again.',
    bodyOther:
      'This removes your account and its links to {count} badges. The issuers keep their records; you can sign in again later and find your badges again.',
    submit: 'Delete my account',
    cancel: 'Cancel',
  },
  deleted: {
    title: 'Account deleted',
    heading: 'Your account is deleted',
    body: 'Nothing of it is kept.',
    signInAgain: 'Sign in again',
  },
  walletOffer: {
    title: 'Add to a wallet',
    body: 'Scan this code with your wallet app (OpenID4VCI), or open the offer on this device.',
    qr: 'Wallet offer QR code',
    open: 'Open in a wallet app',
    lcw: 'Add to the Learner Credential Wallet',
    back: 'Back to your backpack',
  },
};

export type BackpackMessages = typeof en;
