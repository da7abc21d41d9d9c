import { CLR_V2_CONTEXT, OB_V3_CONTEXT, OB_V3_EXTENSIONS_CONTEXT, VC_V2_CONTEXT } from '../vc/contexts.js';

/** The official JSON Schema a ClrCredential names (1EdTech, CLR 2.0 §8 "Verification and Validation"). */
export const CLR_V2_CREDENTIAL_SCHEMA =
  'https://purl.imsglobal.org/spec/clr/v2p0/schema/json/clr_v2p0_clrcredential_schema.json';

/** A signed AchievementCredential (OpenBadgeCredential) of one pathway stage, as this service hosts it. */
export interface StageCredential {
  stepOrder: number;
  credential: {
    validUntil?: string;
    credentialSubject: { identifier?: unknown[]; achievement: { id: string } & Record<string, unknown> };
  } & Record<string, unknown>;
}

/**
 * CLR 2.0 `Association`s for the pathway's order: each achievement of a step `precedes` each
 * achievement of the next step that has one (AssociationType "precedes": the source achievement
 * precedes the target). Stages sharing a step have no order between them, so none is stated.
 */
export function pathwayAssociations(stages: { stepOrder: number; achievementId: string }[]) {
  const steps = [...new Set(stages.map((s) => s.stepOrder))].sort((a, b) => a - b);
  const at = (step: number) => stages.filter((s) => s.stepOrder === step).map((s) => s.achievementId);
  return steps
    .slice(1)
    .flatMap((step, i) =>
      at(steps[i] as number).flatMap((sourceId) =>
        at(step).map((targetId) => ({ type: 'Association', associationType: 'precedes', sourceId, targetId })),
      ),
    );
}

/**
 * The unsigned ClrCredential (CLR 2.0, VC Data Model 2.0) of a completed pathway: issued by the
 * pathway's issuer (its Profile, `issuer`, as on its credentials), its subject a `ClrSubject` that
 * names the recipient by the same salted email hash as the stage credentials (`identifier`; CLR 2.0
 * ClrSubject: "either id or at least one identifier is required"), holds the signed stage
 * credentials (`verifiableCredential`) and their achievements in step order, and states the order
 * as associations. `partial`: the CLR holds this pathway's credentials, not every credential the
 * issuer knows of the learner (CLR 2.0 ClrCredential.partial). Valid until the first of its
 * credentials expires, since after that it no longer shows a completed pathway.
 */
export function clrCredential(parts: {
  id: string;
  issuer: { id: string } & Record<string, unknown>;
  pathway: { name: string; description?: string | undefined };
  validFrom: string;
  stages: StageCredential[];
}) {
  const ordered = [...parts.stages].sort((a, b) => a.stepOrder - b.stepOrder);
  const achievements = ordered.map((s) => s.credential.credentialSubject.achievement);
  const identifier = ordered[0]?.credential.credentialSubject.identifier ?? [];
  const until = ordered
    .map((s) => s.credential.validUntil)
    .filter((v): v is string => typeof v === 'string')
    .sort()[0];
  return {
    '@context': [VC_V2_CONTEXT, CLR_V2_CONTEXT, OB_V3_CONTEXT, OB_V3_EXTENSIONS_CONTEXT],
    id: parts.id,
    type: ['VerifiableCredential', 'ClrCredential'],
    name: parts.pathway.name,
    ...(parts.pathway.description ? { description: parts.pathway.description } : {}),
    issuer: parts.issuer,
    validFrom: parts.validFrom,
    ...(until ? { validUntil: until } : {}),
    partial: true,
    credentialSubject: {
      type: ['ClrSubject'],
      identifier,
      achievement: achievements,
      verifiableCredential: ordered.map((s) => s.credential),
      association: pathwayAssociations(
        ordered.map((s) => ({ stepOrder: s.stepOrder, achievementId: s.credential.credentialSubject.achievement.id })),
      ),
    },
    credentialSchema: [{ id: CLR_V2_CREDENTIAL_SCHEMA, type: '1EdTechJsonSchemaValidator2019' }],
  };
}

export type ClrCredential = ReturnType<typeof clrCredential>;
