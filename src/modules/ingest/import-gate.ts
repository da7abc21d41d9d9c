import { errors } from '../../core/errors.js';

/**
 * How many CSV imports run at once (design.md §4 CSV import, docs/decisions.md): a 10 MiB import
 * holds tens of MB while it runs, so 32 at once ran a process out of memory. The bound is per
 * process; each replica bounds its own imports.
 */
export const IMPORTS_PER_PROCESS = 2;
/** Per issuer, every key of it together: one tenant never takes every slot of a process. */
export const IMPORTS_PER_ISSUER = 1;
/** What a refused import is told to wait: about the time a 10 MiB import takes. */
export const IMPORT_RETRY_AFTER_SECONDS = 5;

export interface ImportSlot {
  /** Runs the import holding the slot, and frees it when the import ends. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** The request ended before its import began (refused body, dropped connection): free the slot. */
  abandon(): void;
}

/** The slots CSV imports take before their body is read (a hook ahead of body parsing). */
export function createImportGate(limits = { perProcess: IMPORTS_PER_PROCESS, perIssuer: IMPORTS_PER_ISSUER }) {
  let running = 0;
  const byIssuer = new Map<string, number>();

  function slotOf(issuerId: string): ImportSlot {
    let state: 'waiting' | 'working' | 'released' = 'waiting';
    const release = () => {
      if (state === 'released') return;
      state = 'released';
      running--;
      const left = (byIssuer.get(issuerId) ?? 1) - 1;
      if (left === 0) byIssuer.delete(issuerId);
      else byIssuer.set(issuerId, left);
    };
    return {
      async run(work) {
        // Freed already: the client went away while its body was read, so nobody awaits this import.
        if (state === 'released') throw errors.importBusy('The import was abandoned by its client.');
        state = 'working';
        try {
          return await work();
        } finally {
          release();
        }
      },
      abandon() {
        if (state === 'waiting') release();
      },
    };
  }

  return {
    /** A slot for the issuer's import; 429 import_busy when the issuer or the process has none free. */
    enter(issuerId: string): ImportSlot {
      const mine = byIssuer.get(issuerId) ?? 0;
      if (mine >= limits.perIssuer) {
        throw errors.importBusy(
          `This issuer already runs ${limits.perIssuer === 1 ? 'an import' : `${mine} imports`}; retry when it has finished.`,
        );
      }
      if (running >= limits.perProcess) {
        throw errors.importBusy('The service runs as many imports as it can at once; retry shortly.');
      }
      running++;
      byIssuer.set(issuerId, mine + 1);
      return slotOf(issuerId);
    },
  };
}

export type ImportGate = ReturnType<typeof createImportGate>;
