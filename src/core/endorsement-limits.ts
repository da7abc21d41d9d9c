/**
 * The limits of endorsements given with a key (issue 48 §4; docs/decisions.md "Endorsements need the
 * endorsed issuer's consent"): a claim is a comment, not an essay; a definition holds at most
 * ENDORSEMENT_PENDING_MAX awaiting its issuer's decision and ENDORSEMENT_ACCEPTED_MAX accepted, so
 * signing one of its credentials embeds at most that many, whatever else was given; each endorser
 * holds at most one endorsement of a definition that it has not revoked.
 */
export const ENDORSEMENT_CLAIM_MAX = 1000;
export const ENDORSEMENT_PENDING_MAX = 50;
export const ENDORSEMENT_ACCEPTED_MAX = 10;

export const ENDORSEMENT_STATUSES = ['pending', 'accepted', 'rejected', 'removed'] as const;
export type EndorsementStatus = (typeof ENDORSEMENT_STATUSES)[number];

/**
 * What the endorsed issuer can do with an endorsement it received, and the status each leads to.
 * These live in core because both the vc module (which stores and signs endorsements) and the
 * endorsements module (their routes) read them, and vc reaches endorsements through documents.
 */
export const DECISIONS = { accept: 'accepted', reject: 'rejected', remove: 'removed' } as const;
export type Decision = keyof typeof DECISIONS;
