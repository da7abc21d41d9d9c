/**
 * The LTI tool's pages in English (the learner's and instructor's pages in the LMS, the picker, the
 * registration's last page), the reference every other language is typed against. `{name}`
 * placeholders are filled with escaped values; keep them in every translation. A pair `…One` /
 * `…Other` is chosen by the language's plural rule.
 */
export const en = {
  refused: 'This launch was refused',
  failed: 'Accolade could not do this',
  thisBadge: 'This badge',
  registered: {
    title: 'Accolade is registered',
    body: '{platform} can now place badges in courses. You can close this window.',
  },
  rule: {
    title: 'Add a badge',
    heading: 'Add “{badge}” to the course',
    legend: 'Award the badge',
    onLaunch: 'When the learner opens it',
    onScore: 'When their score reaches',
    minScore: 'Minimum score (%)',
    submit: 'Add to course',
  },
  autoPost: {
    title: 'Adding the badge',
    heading: 'Adding the badge…',
    continue: 'Continue',
  },
  picker: {
    title: 'Choose a badge',
    none: 'The issuer has no active badges yet.',
  },
  earned: {
    title: 'Badge earned',
    heading: 'You earned “{badge}”',
    verify: 'See your badge on its verification page',
    certificate: 'Download your certificate (PDF)',
    walletHeading: 'Keep it in a wallet',
    qr: 'QR code of the wallet offer',
    lcw: 'Open in the Learner Credential Wallet',
  },
  progress: {
    title: 'Badge requirement',
    rule: 'You earn this badge when your score reaches {score}.',
    none: 'No score has been recorded for you yet.',
    soFar: 'Your score so far: {score}.',
  },
  noEmail:
    'The LMS did not share your email address with Accolade, so the badge cannot be issued to you. Ask your instructor.',
  /** Why a launch shows nothing to do (LaunchView `nothing`). */
  nothing: {
    noUser: 'The LMS did not say who you are in this course.',
    instructorOnly: 'Only an instructor can add a badge to a course.',
    notPlaced: 'This link was not added through Accolade’s badge picker.',
    noCourse: 'This launch has no course.',
    learnersOnly: 'Badges are awarded to learners of the course.',
  },
  instructor: {
    title: 'Who has earned {badge}',
    heading: 'Who has earned “{badge}”',
    ruleScore: 'Awarded when a learner’s score reaches {score}.',
    ruleLaunch: 'Awarded when a learner opens the link.',
    select: 'Select',
    learner: 'Learner',
    score: 'Score',
    badge: 'Badge',
    selectLearner: 'Select {name}',
    earned: 'Earned',
    notYet: 'Not yet',
    noEmail: 'No email shared',
    award: 'Award to selected',
    check: 'Check scores now',
    awardedOne: 'Awarded to {count} learner.',
    awardedOther: 'Awarded to {count} learners.',
    checkedOne: 'Scores checked: awarded to {count} learner.',
    checkedOther: 'Scores checked: awarded to {count} learners.',
    onOpen: 'This badge is awarded when learners open the link.',
  },
};

export type LtiMessages = typeof en;
