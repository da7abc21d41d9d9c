import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from '../../config.js';
import type { Core } from '../../core/context.js';
import { CONTROLS, LAST_REVIEWED, SLO_TARGETS } from './trust.controls.js';
import { type Subprocessor, SubprocessorFileSchema, type TrustControls } from './trust.schemas.js';

const VARIABLE = 'TRUST_SUBPROCESSORS_FILE';

/**
 * Reads the operator's subprocessor list. A file that is missing, not JSON or not a list of
 * {name, purpose, location, dataTypes} stops start-up: publishing a wrong list is worse than none.
 */
export function loadSubprocessors(path: string | null): Subprocessor[] {
  if (path === null) return [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`${VARIABLE}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError([`${VARIABLE}: ${path} is not valid JSON (${(err as Error).message})`]);
  }
  const problems = [...Value.Errors(SubprocessorFileSchema, data)].map(
    (e) => `${VARIABLE}: ${path} at ${e.path || '/'}: ${e.message}`,
  );
  if (problems.length > 0) {
    throw new ConfigError([
      ...problems,
      `${VARIABLE}: expected a JSON array of {"name", "purpose", "location", "dataTypes": [strings]}`,
    ]);
  }
  return data as Subprocessor[];
}

/** The public trust page: controls, subprocessors and service objectives, built once at start-up. */
export function createTrustService(core: Pick<Core, 'config'>) {
  const subprocessors = loadSubprocessors(core.config.trustSubprocessorsFile);
  const page: TrustControls = {
    controls: [...CONTROLS],
    subprocessors,
    slo: { ...SLO_TARGETS, dataResidency: core.config.dataResidency, lastReviewed: LAST_REVIEWED },
    controlCount: CONTROLS.length,
    categoryCount: new Set(CONTROLS.map((c) => c.category)).size,
  };
  return {
    controls: (): TrustControls => page,
  };
}

export type TrustService = ReturnType<typeof createTrustService>;
