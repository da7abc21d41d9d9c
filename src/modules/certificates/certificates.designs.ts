import { errors, type ValidationIssue } from '../../core/errors.js';
import type { CertificateDesignRow } from './certificates.repository.js';
import type {
  CertificateDesign,
  CertificateDesignInput,
  CertificateSettingsInput,
  PLACEHOLDERS,
} from './certificates.schemas.js';

/** The built-in design: what a definition gets while neither it nor its issuer has one. */
export const DEFAULT_DESIGN: CertificateDesign = {
  enabled: true,
  title: 'Certificate of Achievement',
  wording: 'has successfully earned {badgeName} from {issuerName} on {issuedOn}.',
  signatories: [],
  backgroundImageId: null,
  borderStyle: 'classic',
  orientation: 'landscape',
  size: 'auto',
  color: null,
  logoImageId: null,
};

/** The design a body describes: every field it leaves out takes the built-in default. */
export function completeDesign(input: CertificateDesignInput): CertificateDesign {
  return {
    enabled: input.enabled,
    title: input.title ?? DEFAULT_DESIGN.title,
    wording: input.wording ?? DEFAULT_DESIGN.wording,
    signatories: (input.signatories ?? []).map((s) => ({
      name: s.name,
      role: s.role ?? '',
      signatureImageId: s.signatureImageId ?? null,
    })),
    backgroundImageId: input.backgroundImageId ?? null,
    borderStyle: input.borderStyle ?? DEFAULT_DESIGN.borderStyle,
    orientation: input.orientation ?? DEFAULT_DESIGN.orientation,
    size: input.size ?? DEFAULT_DESIGN.size,
    color: input.color ?? null,
    logoImageId: input.logoImageId ?? null,
  };
}

/** What the issuer row holds: its default design and its country. */
export interface IssuerCertificateSettings {
  design: CertificateDesign | null;
  country: string | null;
}

export function parseSettings(row: CertificateDesignRow | undefined): IssuerCertificateSettings {
  if (!row) return { design: null, country: null };
  const stored = JSON.parse(row.design) as CertificateSettingsInput;
  const { country, ...design } = stored;
  return { design: completeDesign(design), country: country ?? null };
}

const PLACEHOLDER = /\{([^{}]*)\}/g;

export function fillWording(wording: string, values: Record<(typeof PLACEHOLDERS)[number], string>): string {
  return wording.replace(PLACEHOLDER, (whole, name: string) =>
    name in values ? values[name as keyof typeof values] : whole,
  );
}

/** Countries whose paper is US Letter (the rest of the world uses A4). */
const LETTER_COUNTRIES = new Set([
  'US',
  'CA',
  'MX',
  'PH',
  'CL',
  'CO',
  'VE',
  'CR',
  'DO',
  'GT',
  'PA',
  'PR',
  'SV',
  'NI',
  'HN',
  'BZ',
]);

export function paperSize(size: CertificateDesign['size'], country: string | null): 'A4' | 'Letter' {
  if (size !== 'auto') return size;
  return country && LETTER_COUNTRIES.has(country) ? 'Letter' : 'A4';
}

export function refuse(issues: ValidationIssue[]): void {
  if (issues.length > 0) throw errors.validation('The certificate design is not valid.', issues);
}
