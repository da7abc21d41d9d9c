import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialService } from '../credentials/credentials.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { WalletService } from '../wallet/wallet.service.js';
import type { Advantage, Member } from './lti.advantage.js';
import { type Award, ltiCompletionKey } from './lti.awards.js';
import { CLAIM, isLearnerRole, LINK_PARAMETER, MESSAGE, PATHS, SCOPE } from './lti.constants.js';
import type { ToolKeys } from './lti.keys.js';
import type { Launches, VerifiedLaunch } from './lti.launch.js';
import type { LtiRepository } from './lti.repository.js';
import type { Sealer } from './lti.sealed.js';
import type { LtiLinksTable, LtiPlatformsTable } from './lti.tables.js';

const PICKER_SECONDS = 30 * 60;
const INSTRUCTOR_SECONDS = 60 * 60;
const RESPONSE_SECONDS = 300;
/** Members shown on the instructor's page and read per sync (NRPS pages are followed up to this). */
const ROSTER_MAX = 2000;
const SYNC_SCOPES = [SCOPE.resultReadonly, SCOPE.memberships];

export class LtiPageError extends Error {
  override name = 'LtiPageError';
}

interface PickerGrant {
  /** The launch's locale, for the pages after the picker. */
  locale?: string | null;
  platformId: string;
  deploymentId: string;
  returnUrl: string;
  data: string | null;
  acceptLineItem: boolean;
}

interface InstructorGrant {
  /** The launch's locale, for the instructor's later pages. */
  locale?: string | null;
  platformId: string;
  deploymentId: string;
  contextId: string;
  linkId: string;
  membershipsUrl: string | null;
  lineItemUrl: string | null;
}

export interface RosterRow {
  userId: string;
  name: string;
  percent: number | null;
  earned: boolean;
  hasEmail: boolean;
}

/**
 * What a page's language is chosen by (issue 45 §2): the launch's `launch_presentation.locale`
 * (LTI Core 1.3 §5.4.4), and the badge's own language (its definition's, which defaults to the
 * issuer's) when there is a badge.
 */
export interface LanguageHints {
  locale: string | null;
  badge: string | null;
}

/** Why a launch has nothing to show (the page's catalogue words them: lti/messages `nothing`). */
export type NothingReason = 'noUser' | 'instructorOnly' | 'notPlaced' | 'noCourse' | 'learnersOnly';

/** What the instructor's page says was just done. */
export type InstructorNotice = { done: 'awarded' | 'checked'; count: number } | { done: 'onOpen' };

export type LaunchView = LaunchPage & { languages: LanguageHints };

type LaunchPage =
  | { page: 'picker'; token: string; definitions: { id: string; name: string }[] }
  | {
      page: 'earned';
      badge: string;
      verifyUrl: string;
      assertionUrl: string;
      wallet: { qr: string; lcwUrl: string; offer: string } | null;
      /** The earner's own certificate link (issue 44), null when the issuer gives no certificate. */
      certificateUrl: string | null;
    }
  | { page: 'progress'; badge: string; minScore: number; percent: number | null }
  | { page: 'no_email'; badge: string }
  | { page: 'nothing'; reason: NothingReason }
  | {
      page: 'instructor';
      badge: string;
      rule: 'launch' | 'score';
      minScore: number | null;
      rows: RosterRow[];
      token: string;
      notice: InstructorNotice | null;
    };

/** The tool's uses once a launch is verified: the picker, the learner's award, the instructor's view and the score sync. */
export function createLtiService(
  core: Pick<Core, 'config' | 'clock' | 'ids' | 'log'>,
  deps: {
    repo: LtiRepository;
    launches: Launches;
    keys: ToolKeys;
    sealer: Sealer;
    advantage: Advantage;
    award: Award;
    audit: Pick<AuditService, 'append'>;
    definitions: Pick<DefinitionService, 'list' | 'findRow'>;
    credentials: Pick<CredentialService, 'search'>;
    wallet: Pick<WalletService, 'createOffer'>;
    certificateLink?: (issuerId: string, credentialId: string) => Promise<string | null>;
  },
) {
  const { repo, sealer, advantage, award } = deps;
  const base = core.config.publicBaseUrl;

  async function earnedKeys(
    platform: LtiPlatformsTable,
    where: { deploymentId: string; contextId: string; definitionId: string },
    subjects: string[],
  ): Promise<Set<string>> {
    const earned = new Set<string>();
    for (const subject of subjects) {
      const completionKey = ltiCompletionKey({ platformIssuer: platform.platform_issuer, subject, ...where });
      const found = await deps.credentials.search(platform.issuer_id, { completionKey, limit: 1, offset: 0 });
      if (found.items.some((item) => item.status !== 'revoked')) earned.add(subject);
    }
    return earned;
  }

  /** Reads a context's results and roster and awards every learner at or above the link's minimum, once. */
  async function syncScores(
    platform: LtiPlatformsTable,
    link: LtiLinksTable,
    where: { deploymentId: string; contextId: string; lineItemUrl: string; membershipsUrl: string | null },
  ): Promise<{ checked: number; awarded: number }> {
    if (link.rule !== 'score' || link.min_score === null || !where.membershipsUrl) return { checked: 0, awarded: 0 };
    const results = await advantage.results(platform, where.lineItemUrl, SYNC_SCOPES);
    const passing = results.filter((r) => r.percent !== null && r.percent >= (link.min_score ?? 100));
    if (passing.length === 0) return { checked: results.length, awarded: 0 };
    const members = new Map(
      (await advantage.members(platform, where.membershipsUrl, SYNC_SCOPES)).map((m) => [m.userId, m] as const),
    );
    let awarded = 0;
    for (const result of passing) {
      const member = members.get(result.userId);
      if (!member?.email || !member.active) continue;
      const issued = await award(
        platform,
        { deploymentId: where.deploymentId, contextId: where.contextId, definitionId: link.definition_id },
        { subject: member.userId, email: member.email, name: member.name },
      );
      if (issued.created) awarded++;
    }
    return { checked: results.length, awarded };
  }

  /** An instructor's request from the LMS, recorded with its counts (each award has its own record). */
  async function requested(
    platform: LtiPlatformsTable,
    link: LtiLinksTable,
    action: string,
    details: Record<string, number>,
  ) {
    await repo.transaction((trx) =>
      deps.audit.append(trx, {
        issuerId: platform.issuer_id,
        actor: `lti:${platform.id}`,
        action,
        targetType: 'lti_link',
        targetId: link.id,
        details,
      }),
    );
  }

  async function instructorView(
    grant: InstructorGrant,
    token: string,
    notice: InstructorNotice | null,
  ): Promise<LaunchView> {
    const platform = await repo.platformById(grant.platformId);
    if (!platform) throw new LtiPageError('This platform is no longer registered with Accolade.');
    const link = await repo.link(platform.issuer_id, platform.id, grant.linkId);
    if (!link) throw new LtiPageError('This badge link was removed from Accolade.');
    const definition = await deps.definitions.findRow(platform.issuer_id, link.definition_id);
    let members: Member[] = [];
    const scores = new Map<string, number | null>();
    if (grant.membershipsUrl) {
      members = (await advantage.members(platform, grant.membershipsUrl, SYNC_SCOPES))
        .filter((m) => m.active && m.roles.some(isLearnerRole))
        .slice(0, ROSTER_MAX);
    }
    if (link.rule === 'score' && grant.lineItemUrl) {
      for (const r of await advantage.results(platform, grant.lineItemUrl, SYNC_SCOPES))
        scores.set(r.userId, r.percent);
    }
    const where = { deploymentId: grant.deploymentId, contextId: grant.contextId, definitionId: link.definition_id };
    const earned = await earnedKeys(
      platform,
      where,
      members.map((m) => m.userId),
    );
    return {
      page: 'instructor',
      languages: { locale: grant.locale ?? null, badge: definition?.language ?? null },
      badge: definition?.name ?? '',
      rule: link.rule,
      minScore: link.min_score,
      rows: members.map((m) => ({
        userId: m.userId,
        name: m.name ?? m.userId,
        percent: scores.get(m.userId) ?? null,
        earned: earned.has(m.userId),
        hasEmail: m.email !== null,
      })),
      token,
      notice,
    };
  }

  async function learnerView(launch: VerifiedLaunch, link: LtiLinksTable, badge: string): Promise<LaunchPage> {
    const { platform } = launch;
    if (!launch.subject || !launch.contextId) return { page: 'nothing', reason: 'noUser' };
    if (!launch.email) return { page: 'no_email', badge };
    const where = { deploymentId: launch.deploymentId, contextId: launch.contextId, definitionId: link.definition_id };
    let percent: number | null = null;
    if (link.rule === 'score') {
      if (launch.lineItemUrl) {
        try {
          const [own] = await advantage.results(platform, launch.lineItemUrl, SYNC_SCOPES, launch.subject);
          percent = own?.percent ?? null;
        } catch (err) {
          core.log.warn({ action: 'lti.results_unavailable', err: (err as Error).message }, 'AGS results unavailable');
        }
      }
      const earned = (await earnedKeys(platform, where, [launch.subject])).size > 0;
      if (!earned && (percent === null || percent < (link.min_score ?? 100))) {
        return { page: 'progress', badge, minScore: link.min_score ?? 100, percent };
      }
    }
    const issued = await award(platform, where, {
      subject: launch.subject,
      email: launch.email,
      name: launch.name,
      language: launch.locale,
    });
    let wallet: { qr: string; lcwUrl: string; offer: string } | null = null;
    let certificateUrl: string | null = null;
    if (issued.status === 'valid') {
      certificateUrl = (await deps.certificateLink?.(platform.issuer_id, issued.credentialId)) ?? null;
      const made = await deps.wallet.createOffer(platform.issuer_id, `lti:${platform.id}`, issued.credentialId, {
        txCode: false,
        channel: 'api',
      });
      wallet = { qr: made.qr, lcwUrl: made.learnerCredentialWallet.url, offer: made.offer };
    }
    return {
      page: 'earned',
      badge,
      verifyUrl: issued.verifyUrl,
      assertionUrl: issued.assertionUrl,
      wallet,
      certificateUrl,
    };
  }

  /** The page of a verified launch; `languages.badge` is set once the badge is known. */
  async function launchPage(launch: VerifiedLaunch, languages: LanguageHints): Promise<LaunchView | LaunchPage> {
    const { platform } = launch;
    if (launch.messageType === MESSAGE.deepLinkingRequest && launch.deepLinking) {
      if (!launch.teaching) return { page: 'nothing', reason: 'instructorOnly' };
      const definitions = (await deps.definitions.list(platform.issuer_id))
        .filter((d) => d.status === 'active')
        .map((d) => ({ id: d.id, name: d.name }));
      const token = sealer.seal<PickerGrant>(
        'picker',
        { locale: launch.locale, platformId: platform.id, deploymentId: launch.deploymentId, ...launch.deepLinking },
        PICKER_SECONDS,
      );
      return { page: 'picker', token, definitions };
    }
    const link = launch.linkId ? await repo.link(platform.issuer_id, platform.id, launch.linkId) : undefined;
    if (!link) return { page: 'nothing', reason: 'notPlaced' };
    const definition = await deps.definitions.findRow(platform.issuer_id, link.definition_id);
    languages.badge = definition?.language ?? null;
    // No name (a definition gone since): the page says "this badge" in its language.
    const badge = definition?.name ?? '';
    if (launch.contextId && link.rule === 'score') {
      await repo.recordContext({
        link_id: link.id,
        deployment_id: launch.deploymentId,
        context_id: launch.contextId,
        issuer_id: platform.issuer_id,
        platform_id: platform.id,
        lineitem_url: launch.lineItemUrl,
        memberships_url: launch.membershipsUrl,
        next_sync_at: isoNow(core.clock),
        last_synced_at: null,
      });
    }
    if (launch.teaching) {
      if (!launch.contextId) return { page: 'nothing', reason: 'noCourse' };
      const grant: InstructorGrant = {
        locale: launch.locale,
        platformId: platform.id,
        deploymentId: launch.deploymentId,
        contextId: launch.contextId,
        linkId: link.id,
        membershipsUrl: launch.membershipsUrl,
        lineItemUrl: launch.lineItemUrl,
      };
      return instructorView(grant, sealer.seal('instructor', grant, INSTRUCTOR_SECONDS), null);
    }
    if (!launch.learning) return { page: 'nothing', reason: 'learnersOnly' };
    return learnerView(launch, link, badge);
  }

  return {
    /** What the verified launch shows: the picker (deep linking), the learner's page or the instructor's. */
    async launch(
      form: { id_token?: string; state?: string },
      cookie: string | undefined,
      verified: () => Promise<void> = async () => undefined,
    ): Promise<LaunchView> {
      const launch = await deps.launches.verify(form, cookie);
      await verified();
      const languages: LanguageHints = { locale: launch.locale, badge: null };
      const view = await launchPage(launch, languages);
      return 'languages' in view ? view : { ...view, languages };
    },

    /** The badge the instructor chose in the picker, before the award rule is asked. */
    async pickerChoice(
      token: string,
      definitionId: string,
    ): Promise<{ id: string; name: string; languages: LanguageHints }> {
      const grant = sealer.open<PickerGrant>('picker', token);
      if (!grant) throw new LtiPageError('This picker has expired. Open “Add a badge” in the LMS again.');
      const platform = await repo.platformById(grant.platformId);
      const definition = platform ? await deps.definitions.findRow(platform.issuer_id, definitionId) : undefined;
      if (definition?.status !== 'active') throw new LtiPageError('Choose one of the badges listed.');
      return {
        id: definition.id,
        name: definition.name,
        languages: { locale: grant.locale ?? null, badge: definition.language },
      };
    },

    /**
     * Deep Linking 2.0 §4.5 "Deep linking response message": one `ltiResourceLink` (§3.1 "LTI
     * resource link") carrying the placed link's id as a custom parameter, with a `lineItem` for the
     * score rule so the LMS makes the grade column. Signed with the tool's key; `iss` is the client
     * id and `aud` the platform, as the response goes from the tool to the platform.
     */
    async deepLink(
      token: string,
      choice: { definitionId: string; rule: 'launch' | 'score'; minScore?: number },
    ): Promise<{ returnUrl: string; jwt: string; languages: LanguageHints }> {
      const grant = sealer.open<PickerGrant>('picker', token);
      if (!grant) throw new LtiPageError('This picker has expired. Open “Add a badge” in the LMS again.');
      const platform = await repo.platformById(grant.platformId);
      if (!platform) throw new LtiPageError('This platform is no longer registered with Accolade.');
      const definition = await deps.definitions.findRow(platform.issuer_id, choice.definitionId);
      if (definition?.status !== 'active') throw new LtiPageError('Choose one of the badges listed.');
      const minScore = choice.rule === 'score' ? (choice.minScore ?? 100) : null;
      const link: LtiLinksTable = {
        id: core.ids.uuid(),
        issuer_id: platform.issuer_id,
        platform_id: platform.id,
        definition_id: definition.id,
        rule: choice.rule,
        min_score: minScore,
        created_at: isoNow(core.clock),
      };
      await repo.transaction(async (trx) => {
        await repo.insertLink(trx, link);
        await deps.audit.append(trx, {
          issuerId: platform.issuer_id,
          actor: `lti:${platform.id}`,
          action: 'lti.link.created',
          targetType: 'lti_link',
          targetId: link.id,
          details: { definitionId: definition.id, rule: link.rule, minScore },
        });
      });
      const item: Record<string, unknown> = {
        type: 'ltiResourceLink',
        title: definition.name,
        url: `${base}${PATHS.launch}`,
        custom: { [LINK_PARAMETER]: link.id },
      };
      if (choice.rule === 'score' && grant.acceptLineItem) {
        item.lineItem = { scoreMaximum: 100, label: definition.name, resourceId: link.id, tag: 'accolade-badge' };
      }
      const key = await deps.keys.current(platform.issuer_id);
      const jwt = await new SignJWT({
        nonce: randomBytes(16).toString('base64url'),
        [CLAIM.messageType]: MESSAGE.deepLinkingResponse,
        [CLAIM.version]: '1.3.0',
        [CLAIM.deploymentId]: grant.deploymentId,
        [CLAIM.contentItems]: [item],
        ...(grant.data !== null ? { [CLAIM.deepLinkingData]: grant.data } : {}),
      })
        .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
        .setIssuer(platform.client_id)
        .setAudience(platform.platform_issuer)
        .setIssuedAt()
        .setExpirationTime(`${RESPONSE_SECONDS}s`)
        .sign(key.privateKey);
      return {
        returnUrl: grant.returnUrl,
        jwt,
        languages: { locale: grant.locale ?? null, badge: definition.language },
      };
    },

    /** "Award to selected": learners the instructor says met the criteria outside the LMS. */
    async awardSelected(token: string, userIds: string[]): Promise<LaunchView> {
      const grant = sealer.open<InstructorGrant>('instructor', token);
      if (!grant) throw new LtiPageError('This page has expired. Open the link in the LMS again.');
      const platform = await repo.platformById(grant.platformId);
      const link = platform ? await repo.link(platform.issuer_id, platform.id, grant.linkId) : undefined;
      if (!platform || !link || !grant.membershipsUrl) throw new LtiPageError('This course roster cannot be read.');
      const wanted = new Set(userIds);
      const members = await advantage.members(platform, grant.membershipsUrl, SYNC_SCOPES);
      let awarded = 0;
      for (const member of members) {
        if (!wanted.has(member.userId) || !member.email || !member.roles.some(isLearnerRole)) continue;
        const issued = await award(
          platform,
          { deploymentId: grant.deploymentId, contextId: grant.contextId, definitionId: link.definition_id },
          { subject: member.userId, email: member.email, name: member.name },
        );
        if (issued.created) awarded++;
      }
      await requested(platform, link, 'lti.awards_requested', { selected: wanted.size, awarded });
      return instructorView(grant, token, { done: 'awarded', count: awarded });
    },

    /** "Check scores now": the sync of this course's results, at once. */
    async checkScores(token: string): Promise<LaunchView> {
      const grant = sealer.open<InstructorGrant>('instructor', token);
      if (!grant) throw new LtiPageError('This page has expired. Open the link in the LMS again.');
      const platform = await repo.platformById(grant.platformId);
      const link = platform ? await repo.link(platform.issuer_id, platform.id, grant.linkId) : undefined;
      if (!platform || !link) throw new LtiPageError('This badge link was removed from Accolade.');
      let notice: InstructorNotice = { done: 'onOpen' };
      let awarded = 0;
      if (link.rule === 'score' && grant.lineItemUrl) {
        awarded = (await syncScores(platform, link, { ...grant, lineItemUrl: grant.lineItemUrl })).awarded;
        notice = { done: 'checked', count: awarded };
      }
      await requested(platform, link, 'lti.scores_checked', { awarded });
      return instructorView(grant, token, notice);
    },

    /**
     * One pass of the scheduled sync: claims the due score-rule contexts (each once across replicas),
     * reads their results and rosters and awards; a platform that fails is logged and tried at its
     * next turn. Also forgets nonces past their tokens' lifetime.
     */
    async syncDue(batch = 50): Promise<{ contexts: number; awarded: number }> {
      const now = core.clock.now();
      await repo.pruneNonces(now.toISOString());
      const next = new Date(now.getTime() + core.config.ltiSyncIntervalMs).toISOString();
      let contexts = 0;
      let awarded = 0;
      for (;;) {
        const due = await repo.claimDueContexts(now.toISOString(), next, batch);
        if (due.length === 0) break;
        for (const row of due) {
          contexts++;
          try {
            const platform = await repo.platform(row.issuer_id, row.platform_id);
            const link = platform ? await repo.link(row.issuer_id, row.platform_id, row.link_id) : undefined;
            if (!platform || !link || !row.lineitem_url) continue;
            const outcome = await syncScores(platform, link, {
              deploymentId: row.deployment_id,
              contextId: row.context_id,
              lineItemUrl: row.lineitem_url,
              membershipsUrl: row.memberships_url,
            });
            awarded += outcome.awarded;
          } catch (err) {
            core.log.warn(
              { action: 'lti.sync_failed', platform: row.platform_id, err: (err as Error).message },
              'LTI score sync failed',
            );
          }
        }
        if (due.length < batch) break;
      }
      return { contexts, awarded };
    },
  };
}

export type LtiService = ReturnType<typeof createLtiService>;
